/* The REST API's routes: a table the request code (http_request.c) looks up, first match wins. */
#ifndef RODD_ROUTES_H
#define RODD_ROUTES_H

#include "http.h"

typedef enum { ROUTE_EXACT, ROUTE_PREFIX } route_match;

typedef struct {
    const char *path;
    route_match match;
    const char *methods; /* the Allow header's list (405 for others); NULL: the handler decides */
    void (*handler)(http_request *rq, http_response *rs);
} route;

extern const route routes[];
extern const int nroutes;

#endif
