/* rodd check SPEC, rodd solve SPEC: stdout carries the result and nothing else. */
#include "cli.h"
#include "rod.h"
#include "frame_codec.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int cli_check(int argc, char **argv)
{
    int points, status;
    rod_model *m = cli_open(argc, argv, NULL, NULL, NULL, &points, &status);
    if (!m) return status;
    printf("{\"valid\": true, \"coordinates\": %d, \"q_xi\": %d, \"q_rho\": %d, "
           "\"quadrature_points\": %d, \"inputs\": %d}\n",
           rod_model_ndof(m), rod_model_ndof_xi(m), rod_model_ndof_rho(m),
           rod_model_quadrature_points(m), rod_model_ninputs(m));
    rod_model_free(m);
    return EXIT_OK;
}

int cli_solve(int argc, char **argv)
{
    int points, status;
    rod_model *m = cli_open(argc, argv, NULL, NULL, NULL, &points, &status);
    if (!m) return status;
    rod_state *st = cli_new_state(m);
    if (!st) return EXIT_FAILURE_OTHER;
    rod_statics_result res;
    double t0 = cli_now();
    int src = rod_statics_solve(m, st, 0.0, &res);
    double wall = cli_now() - t0;
    if (src != ROD_OK) fprintf(stderr, "rodd: %s\n", rod_state_error(st));
    fprintf(stderr, "rodd: solve %s in %d iterations (%d load steps), residual %.3g, %.3f ms\n",
            res.converged ? "converged" : "did not converge", res.iterations, res.load_steps,
            res.residual, wall * 1e3);
    rod_frame fr;
    int frc = rod_frame_compute(m, st, points, &fr);
    cJSON *out = cJSON_CreateObject();
    if (frc != ROD_OK || !out) {
        fprintf(stderr, "rodd: out of memory\n");
        cJSON_Delete(out);
        rod_state_free(st);
        rod_model_free(m);
        return EXIT_FAILURE_OTHER;
    }
    cJSON_AddBoolToObject(out, "converged", res.converged);
    cJSON_AddNumberToObject(out, "iterations", res.iterations);
    cJSON_AddNumberToObject(out, "load_steps", res.load_steps);
    cJSON_AddNumberToObject(out, "residual", res.residual);
    cJSON_AddNumberToObject(out, "error_indicator", rod_error_indicator(m, rod_state_q(st)));
    cJSON_AddItemToObject(out, "q", cJSON_CreateDoubleArray(rod_state_q(st), rod_model_ndof(m)));
    cJSON_AddItemToObject(out, "frame", frame_codec_cjson(&fr));
    char *text = cJSON_PrintUnformatted(out);
    if (text) {
        puts(text);
        free(text);
    }
    cJSON_Delete(out);
    rod_frame_free(&fr);
    rod_state_free(st);
    rod_model_free(m);
    if (!text) return EXIT_FAILURE_OTHER;
    if (src == ROD_ENOCONV) return EXIT_NO_CONVERGENCE;
    return src == ROD_OK ? EXIT_OK : EXIT_FAILURE_OTHER;
}
