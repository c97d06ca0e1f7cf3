/* rodd loads muparser when it first parses an expression, not at start-up (issue 30, item 3):
 * the library brings libstdc++ and libgomp, all bound at load (Debian builds it with BIND_NOW),
 * about half of a `rodd version` that does nothing else. The engine calls muparser's C
 * interface; in rodd's link these definitions stand in for the library's and forward to it,
 * loaded once for every thread (rodd optimize --jobs parses in several). rodd-full and the
 * tests link the library itself. */
#include "lazy_lib.h"

#include <muParserDLL.h>
#include <pthread.h>

/* the library's soname (Debian's libmuparser2v5) */
#define MUPARSER_SONAME "libmuparser.so.2"

static struct {
    muParserHandle_t (*create)(int);
    void (*release)(muParserHandle_t);
    void (*set_expr)(muParserHandle_t, const muChar_t *);
    void (*define_var)(muParserHandle_t, const muChar_t *, muFloat_t *);
    void (*define_name_chars)(muParserHandle_t, const muChar_t *);
    void (*define_fun1)(muParserHandle_t, const muChar_t *, muFun1_t, muBool_t);
    void (*define_fun3)(muParserHandle_t, const muChar_t *, muFun3_t, muBool_t);
    muFloat_t (*eval)(muParserHandle_t);
    muBool_t (*error)(muParserHandle_t);
    const muChar_t *(*error_msg)(muParserHandle_t);
    muInt_t (*error_pos)(muParserHandle_t);
    int (*expr_var_num)(muParserHandle_t);
    void (*expr_var)(muParserHandle_t, unsigned, const muChar_t **, muFloat_t **);
} mu;
static pthread_once_t mu_once = PTHREAD_ONCE_INIT;

#define PURPOSE "the spec's expressions"

static void load(void)
{
    void *lib = lazy_lib_open(MUPARSER_SONAME, PURPOSE);
    /* POSIX guarantees a data pointer from dlsym converts to the function's type */
#define NEED(field, name) (*(void **)&mu.field = lazy_lib_symbol(lib, MUPARSER_SONAME, name, PURPOSE))
    NEED(create, "mupCreate");
    NEED(release, "mupRelease");
    NEED(set_expr, "mupSetExpr");
    NEED(define_var, "mupDefineVar");
    NEED(define_name_chars, "mupDefineNameChars");
    NEED(define_fun1, "mupDefineFun1");
    NEED(define_fun3, "mupDefineFun3");
    NEED(eval, "mupEval");
    NEED(error, "mupError");
    NEED(error_msg, "mupGetErrorMsg");
    NEED(error_pos, "mupGetErrorPos");
    NEED(expr_var_num, "mupGetExprVarNum");
    NEED(expr_var, "mupGetExprVar");
#undef NEED
}

/* Every handle comes from mupCreate: the library is loaded before any other call. */
muParserHandle_t mupCreate(int base_type)
{
    pthread_once(&mu_once, load);
    return mu.create(base_type);
}

void mupRelease(muParserHandle_t h) { mu.release(h); }
void mupSetExpr(muParserHandle_t h, const muChar_t *expr) { mu.set_expr(h, expr); }
void mupDefineVar(muParserHandle_t h, const muChar_t *name, muFloat_t *var) { mu.define_var(h, name, var); }
void mupDefineNameChars(muParserHandle_t h, const muChar_t *chars) { mu.define_name_chars(h, chars); }
void mupDefineFun1(muParserHandle_t h, const muChar_t *name, muFun1_t f, muBool_t opt) { mu.define_fun1(h, name, f, opt); }
void mupDefineFun3(muParserHandle_t h, const muChar_t *name, muFun3_t f, muBool_t opt) { mu.define_fun3(h, name, f, opt); }
muFloat_t mupEval(muParserHandle_t h) { return mu.eval(h); }
muBool_t mupError(muParserHandle_t h) { return mu.error(h); }
const muChar_t *mupGetErrorMsg(muParserHandle_t h) { return mu.error_msg(h); }
muInt_t mupGetErrorPos(muParserHandle_t h) { return mu.error_pos(h); }
int mupGetExprVarNum(muParserHandle_t h) { return mu.expr_var_num(h); }
void mupGetExprVar(muParserHandle_t h, unsigned i, const muChar_t **name, muFloat_t **var) { mu.expr_var(h, i, name, var); }
