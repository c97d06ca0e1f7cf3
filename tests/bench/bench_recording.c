/* What a recording costs a session: the frame (rod_frame_compute at 51 points, every field)
 * and recording_add's writes, per frame, for the reaching arm; and the export of 30 s of
 * frames at 30 Hz to each format. Prints medians. */
#include "bench_util.h"
#include "export.h"
#include "frame_fields.h"
#include "recording.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define FRAMES 900 /* 30 s at 30 Hz */

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "api/examples/octopus-reaching.json";
    rod_model *m = bench_load_model(spec);
    if (!m) return 1;
    char err[512];
    rod_state *st = rod_state_create(m, err, sizeof err);
    /* moving (the kinetic energy is part of the frame), 50 ms into the run */
    if (!st || rod_dynamics_start(m, st) != ROD_OK || rod_dynamics_advance(m, st, 0.05) != ROD_OK) {
        fprintf(stderr, "bench_recording: cannot start %s\n", spec);
        return 1;
    }
    char dir[] = "/tmp/rodd-bench-rec-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    recording_opts o;
    recording_opts_default(&o);
    rod_frame shape;
    if (rod_frame_shape(m, &shape) != ROD_OK) return 1;
    recording *r = recording_open(dir, "bench", 51, &shape, &o, NULL, err, sizeof err);
    rod_frame_free(&shape);
    if (!r) {
        fprintf(stderr, "bench_recording: %s\n", err);
        return 1;
    }
    static double tf[FRAMES], ta[FRAMES];
    rod_frame f;
    for (int k = 0; k < FRAMES; k++) {
        double t0 = bench_now();
        if (rod_frame_compute(m, st, 51, &f) != ROD_OK) return 1;
        f.t = k / 30.0; /* the same state, stamped on the rate's grid: the cost is the writes' */
        double t1 = bench_now();
        recording_add(r, &f);
        double t2 = bench_now();
        rod_frame_free(&f);
        tf[k] = t1 - t0;
        ta[k] = t2 - t1;
    }
    const double frame_us = 1e6 * bench_median(tf, FRAMES), add_us = 1e6 * bench_median(ta, FRAMES);
    printf("recording (reaching arm, 51 points, every field): frame %.1f us + write %.1f us per frame; "
           "%.2f ms of CPU per simulated second at 30 Hz\n", frame_us, add_us, 30 * (frame_us + add_us) / 1000);
    const char *names[] = {"ndjson", "csv", "hdf5"};
    for (int fmt = EXPORT_NDJSON; fmt <= EXPORT_HDF5; fmt++) {
        char path[300];
        snprintf(path, sizeof path, "%s/out.%s", dir, names[fmt]);
        double t0 = bench_now();
        long n = recording_export(r, (export_format)fmt, -1e300, 1e300, rod_model_spec_json(m), path, err, sizeof err);
        double t1 = bench_now();
        FILE *fp = fopen(path, "rb");
        long size = 0;
        if (fp) {
            fseek(fp, 0, SEEK_END);
            size = ftell(fp);
            fclose(fp);
        }
        printf("export %-6s %ld frames: %.3f s, %.2f MB\n", names[fmt], n, t1 - t0, size / 1e6);
        unlink(path);
    }
    recording_close(r, 1);
    rmdir(dir);
    rod_state_free(st);
    rod_model_free(m);
    return 0;
}
