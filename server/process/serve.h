/* `rodd serve` (the daemon process: configuration, start, signals, drain) and `rodd probe`. */
#ifndef RODD_SERVE_H
#define RODD_SERVE_H

int cli_serve(int argc, char **argv);
int cli_probe(int argc, char **argv);

#endif
