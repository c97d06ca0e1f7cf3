/* The objective per generation as an SVG line plot (best so far, the generation's best, its
 * mean), from rodd optimize's generations.csv. */
#ifndef RODD_OPTIM_PLOT_H
#define RODD_OPTIM_PLOT_H

/* Reads csv_path, writes svg_path; 0 or -1. title is the expression, escaped here. */
int optim_plot_svg(const char *csv_path, const char *svg_path, const char *title, int maximize);

#endif
