/* HTTP content negotiation (RFC 9110 12.5.1): how much an Accept header wants a media type. */
#ifndef RODD_ACCEPT_H
#define RODD_ACCEPT_H

/* The quality (0 to 1) that `accept` gives `type` ("text/csv"), from the most specific of its
 * ranges that matches (the type itself, then "text/ *" and "* / *" without the spaces); 0 when none matches or
 * the match says q=0. A range's q is 1 unless given; a q that is not a number from 0 to 1
 * counts as 0. NULL or empty `accept` accepts everything (1). */
double accept_quality(const char *accept, const char *type);

#endif
