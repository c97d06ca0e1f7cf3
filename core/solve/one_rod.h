/* The one-rod implementations behind rod.h's entry points (entry.c sends a model of several
 * rods to the asm_* files instead): the same contracts as rod.h states, for one rod. */
#ifndef ROD_ONE_ROD_H
#define ROD_ONE_ROD_H

#include "rod.h"

rod_state *state_create_one(const rod_model *m, char *err, size_t errlen);
void state_free_one(rod_state *st);
int frame_compute_one(const rod_model *m, const rod_state *st, int n, rod_frame *out);
int frame_shape_one(const rod_model *m, rod_frame *out);
int input_set_profile_one(rod_state *st, const char *name, const char *json);
int input_set_one(rod_state *st, const char *name, double value);
int input_check_one(const rod_model *m, const char *name, const char *json, char *err,
                                  size_t errlen);
int dynamics_advance_one(const rod_model *m, rod_state *st, double t_end);
int dynamics_stats_one(const rod_state *st, rod_dynamics_stats *out);
int dynamics_start_for_load_one(const rod_model *m, rod_state *st);
int dynamics_start_one(const rod_model *m, rod_state *st);
int statics_solve_one(const rod_model *m, rod_state *st, double t, rod_statics_result *res);
int statics_unknowns_one(const rod_model *m, const rod_state *st, double *u);
int statics_residual_one(const rod_model *m, rod_state *st, double t, const double *u, double *R);
int statics_tangent_one(const rod_model *m, rod_state *st, double t, const double *u, int nrhs, double *B);
char *checkpoint_save_one(const rod_model *m, rod_state *st);
int checkpoint_load_one(const rod_model *m, rod_state *st, const char *json, size_t len);
int forces_one(const rod_model *m, rod_state *st, double *out, double *total);
double indicator_one(const rod_model *m, const double *q);
int penetration_one(const rod_model *m, const rod_state *st, const rod_frame *f, rod_penetration *out);

#endif
