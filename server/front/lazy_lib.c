#include "lazy_lib.h"

#include "cli.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* A missing library or symbol leaves rodd without what the command needs: it says which and
 * exits as for any other failure. RTLD_LAZY: binding every function of libstdc++, which
 * muparser brings, at load was an eighth of `rodd check`'s instructions on a spec with
 * expressions; the libraries built with BIND_NOW (Debian's muparser) still bind theirs at
 * once, and lazy_lib_symbol checks each symbol rodd calls. */
void *lazy_lib_open(const char *soname, const char *purpose)
{
    void *lib = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "rodd: cannot load %s, which %s need: %s\n", soname, purpose, dlerror());
        exit(EXIT_FAILURE_OTHER);
    }
    return lib;
}

void *lazy_lib_symbol(void *lib, const char *soname, const char *name, const char *purpose)
{
    void *p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "rodd: %s lacks %s, which %s need\n", soname, name, purpose);
        exit(EXIT_FAILURE_OTHER);
    }
    return p;
}
