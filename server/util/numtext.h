/* Numbers as text for people and for parsers alike. */
#ifndef RODD_NUMTEXT_H
#define RODD_NUMTEXT_H

/* The shortest decimal that reads back as exactly v ("0.05", not "0.050000000000000003");
 * "nan", "inf" or "-inf" for the others. buf holds at least 32 bytes. */
void num_shortest(char *buf, double v);

#endif
