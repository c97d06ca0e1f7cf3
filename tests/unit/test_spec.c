/* Every way a spec can be wrong is refused with the JSON pointer of the problem, all at
 * once, and nothing is built. */
#include "rod_text.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROD_OK_BODY "\"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, " \
    "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45}"

static void expect(const char *json, const char *fragment)
{
    const char *got = tu_issues(json);
    cr_assert(strstr(got, fragment) != NULL, "expected \"%s\" in:\n%s", fragment, got);
}

Test(spec, a_good_spec_compiles)
{
    rod_model *m = tu_model("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3, "
                            "\"stretch\": 1}}");
    cr_assert_eq(rod_model_ndof(m), 6);
    cr_assert_eq(rod_model_ndof_rho(m), 0);
    rod_model_free(m);
}

Test(spec, unknown_key)
{
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"colour\": 1}",
           "/colour: unknown key");
    expect("{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
           "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45, \"lenght\": 2}, \"strains\": {\"bend2\": 3}}",
           "/rod/lenght: unknown key");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend3\": 3}}",
           "/strains/bend3: unknown key");
}

Test(spec, duplicate_key)
{
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3, \"bend2\": 4}}",
           "/strains/bend2: duplicate key");
}

Test(spec, wrong_type)
{
    expect("{\"model\": \"classic\", \"rod\": {\"length\": \"long\", \"radius\": 0.01, \"density\": 1000, "
           "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 3}}",
           "/rod/length: must be a number");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 2.5}}",
           "/strains/bend2: must be an integer");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": [1]}", "/strains: must be an object");
    expect("[1, 2]", "must be an object");
}

Test(spec, out_of_range)
{
    expect("{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
           "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.5}, \"strains\": {\"bend2\": 3}}",
           "/rod/poisson_ratio: must be in (-1, 0.5)");
    expect("{\"model\": \"classic\", \"rod\": {\"length\": -1, \"radius\": 0.01, \"density\": 1000, "
           "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.3}, \"strains\": {\"bend2\": 3}}",
           "/rod/length: must be > 0");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 300}}",
           "/strains/bend2: must be an integer in [0, 160]");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"actuators\": "
           "[{\"name\": \"c\", \"type\": \"cable\", \"route\": {\"offset\": [0.005, 0]}, \"tension\": -1}]}",
           "/actuators/0/tension: must be >= 0");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"loads\": "
           "[{\"name\": \"p\", \"type\": \"point_force\", \"force\": [1, 0, 0], \"s\": 0.7}]}",
           "/loads/0/s: must be in [0, length]");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, "
           "\"discretization\": {\"magnus_order\": 5}}",
           "/discretization/magnus_order: must be 4 or 6");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, "
           "\"discretization\": {\"magnus_order\": 6.5}}",
           "/discretization/magnus_order: must be an integer");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, "
           "\"solver\": {\"rate_time_scale\": 0}}",
           "/solver/rate_time_scale: must be > 0");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, "
           "\"solver\": {\"rate_time_scale\": \"1 ms\"}}",
           "/solver/rate_time_scale: must be a number");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, "
           "\"solver\": {\"atol\": 1e-8, \"rate_time_scale\": 1e-310}}",
           "/solver/rate_time_scale: makes the rates' tolerance atol / rate_time_scale = 1e+302, not a positive normal number");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, "
           "\"solver\": {\"atol\": 1e-300, \"rate_time_scale\": 1e300}}",
           "/solver/rate_time_scale: makes the rates' tolerance atol / rate_time_scale = 0, not a positive normal number");
}

Test(spec, missing_field)
{
    expect("{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"density\": 1000, "
           "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 3}}",
           "/rod/radius: is required");
    expect("{\"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, \"youngs_modulus\": 1e5, "
           "\"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 3}}", "/model: is required");
    expect("{\"model\": \"classic\", " ROD_OK_BODY "}", "/strains: is required");
    expect("{\"model\": \"extended\", " ROD_OK_BODY ", \"strains\": {\"stretch\": 1}}",
           "/inflation: is required for model \"extended\"");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"loads\": "
           "[{\"name\": \"f\", \"type\": \"tip_force\"}]}", "/loads/0/force: is required");
}

Test(spec, every_problem_at_once)
{
    const char *got = tu_issues(
        "{\"model\": \"classic\", \"rod\": {\"length\": 0, \"radius\": -1, \"density\": 1000, "
        "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.7}, \"strains\": {\"bend2\": -1}, \"x\": 1}");
    const char *want[] = {"/rod/length", "/rod/radius", "/rod/poisson_ratio", "/strains/bend2", "/x"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_assert(strstr(got, want[i]), "missing %s in:\n%s", want[i], got);
}

Test(spec, inflation_on_a_classic_model)
{
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"stretch\": 1}, \"inflation\": "
           "{\"pieces\": 2, \"boundary\": \"neumann\"}}", "/inflation: inflation needs model \"extended\"");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"stretch\": 1}, \"actuators\": "
           "[{\"name\": \"tm\", \"type\": \"transverse\", \"pressure\": 10}]}",
           "/actuators/0/type: \"transverse\" needs model \"extended\"");
}

Test(spec, unknown_actuator_and_load_types)
{
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"actuators\": "
           "[{\"name\": \"x\", \"type\": \"piston\"}]}", "/actuators/0/type: must be one of \"cable\", \"transverse\"");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"loads\": "
           "[{\"name\": \"x\", \"type\": \"push\", \"force\": [0,0,1]}]}", "/loads/0/type: must be one of");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"loads\": "
           "[{\"name\": \"x\", \"type\": \"tip_force\", \"force\": [0,0,1], \"frame\": \"world\"}]}",
           "/loads/0/frame: must be one of \"global\", \"local\"");
}

Test(spec, distributed_loads_act_along_the_whole_rod)
{
    rod_model *m = tu_model("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"loads\": "
                            "[{\"name\": \"q\", \"type\": \"distributed_force\", \"force\": [1, 0, 0]}, "
                            "{\"name\": \"c\", \"type\": \"distributed_moment\", \"moment\": [0, 0, 1], \"frame\": \"local\"}]}");
    cr_assert_str_eq(rod_model_input_type(m, 0), "distributed_force");
    cr_assert_str_eq(rod_model_input_type(m, 1), "distributed_moment");
    rod_model_free(m);
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"loads\": "
           "[{\"name\": \"q\", \"type\": \"distributed_force\", \"force\": [1, 0, 0], \"s\": 0.1}]}",
           "/loads/0/s: not allowed for type \"distributed_force\" (a distributed load acts along the whole rod)");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"loads\": "
           "[{\"name\": \"c\", \"type\": \"distributed_moment\", \"force\": [1, 0, 0]}]}",
           "/loads/0/moment: is required");
}

Test(spec, rotary_inertia_factor_is_positive)
{
    const char *head = "{\"model\": \"classic\", \"strains\": {\"bend2\": 3}, \"rod\": {\"length\": 0.5, "
                       "\"radius\": 0.01, \"density\": 1000, \"youngs_modulus\": 1e5, \"poisson_ratio\": 0.3";
    char json[512];
    snprintf(json, sizeof json, "%s, \"rotary_inertia_factor\": 0}}", head);
    expect(json, "/rod/rotary_inertia_factor: must be > 0");
    snprintf(json, sizeof json, "%s, \"rotary_inertia_factor\": 0.2}}", head);
    rod_model_free(tu_model(json));
}

Test(spec, duplicate_names)
{
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, "
           "\"loads\": [{\"name\": \"a\", \"type\": \"tip_force\", \"force\": [0,0,1]}], "
           "\"actuators\": [{\"name\": \"a\", \"type\": \"cable\", \"route\": {\"offset\": [0.005, 0]}, "
           "\"tension\": 1}]}", "/actuators/0/name: duplicate name \"a\"");
}

Test(spec, malformed_json_reports_position)
{
    expect("{\"model\": \"classic\",\n  \"rod\": {\"length\": x}}", "malformed JSON at line 2, column 21");
    expect("{\"model\": \"classic\"} trailing", "text after the document");
}

Test(spec, empty_file)
{
    expect("", "the spec is empty");
    expect("   \n\t ", "the spec is empty");
}

Test(spec, bad_expression_names_path_and_column)
{
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"actuators\": "
           "[{\"name\": \"c\", \"type\": \"cable\", \"route\": {\"offset\": [0.005, 0]}, \"tension\": \"2*t+\"}]}",
           "/actuators/0/tension: invalid expression at column 5");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"loads\": "
           "[{\"name\": \"f\", \"type\": \"tip_force\", \"force\": [0,0,1], \"scale\": \"X*2\"}]}",
           "/loads/0/scale: invalid expression at column 1: X (position along the rod) is not allowed");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"actuators\": "
           "[{\"name\": \"c\", \"type\": \"cable\", \"route\": {\"offset\": [0.005, 0]}, \"tension\": "
           "{\"wave\": {\"alpha\": \"1+y\", \"sigma\": 4}}}]}", "/actuators/0/tension/wave/alpha: invalid expression at column 3");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"actuators\": "
           "[{\"name\": \"c\", \"type\": \"cable\", \"route\": {\"offset\": [0.005, 0]}, \"tension\": "
           "{\"wave\": {\"alpha\": 1, \"sigma\": 4}}}]}", "/actuators/0/tension/wave/mu: is required");
}

Test(spec, guess_length_checked)
{
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"solver\": "
           "{\"guess\": [1, 2]}}", "/solver/guess: has 2 values; this model has 4 coordinates");
}

Test(spec, overrides_apply_and_report)
{
    const char *json = "{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}}";
    const char *ok[] = {"rod.youngs_modulus=3000", "strains.stretch=2"};
    rod_model *m = tu_model_set(json, ok, 2);
    cr_assert_eq(rod_model_ndof(m), 7);
    cr_assert(strstr(rod_model_spec_json(m), "\"youngs_modulus\":3000"));
    rod_model_free(m);
    const char *badset[] = {"rod.poisson_ratio=0.6"};
    rod_issues iss;
    rod_issues_init(&iss);
    cr_assert_null(rod_model_compile(json, strlen(json), badset, 1, &iss));
    char buf[1024];
    rod_issues_format(&iss, buf, sizeof buf);
    cr_assert(strstr(buf, "/rod/poisson_ratio: must be in (-1, 0.5)"), "%s", buf);
    rod_issues_free(&iss);
    const char *noarr[] = {"loads.3.scale=1"};
    rod_issues_init(&iss);
    cr_assert_null(rod_model_compile(json, strlen(json), noarr, 1, &iss));
    rod_issues_format(&iss, buf, sizeof buf);
    cr_assert(strstr(buf, "--set loads"), "%s", buf);
    rod_issues_free(&iss);
}

Test(spec, hundred_megabyte_file_refused_quickly)
{
    char path[] = "/tmp/rodd-big-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, 100L << 20), 0); /* sparse: no 100 MB written */
    close(fd);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = rod_model_load(path, NULL, 0, &iss);
    clock_gettime(CLOCK_MONOTONIC, &b);
    unlink(path);
    cr_assert_null(m);
    char buf[1024];
    rod_issues_format(&iss, buf, sizeof buf);
    rod_issues_free(&iss);
    cr_assert(strstr(buf, "more than the"), "%s", buf);
    /* refused from its size, unread: far below the time reading it would take */
    double dt = (b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec);
    cr_assert_lt(dt, 0.5, "took %.3f s", dt);
}

Test(spec, oversized_text_refused)
{
    size_t n = ROD_SPEC_MAX_BYTES + 10;
    char *big = malloc(n + 1);
    cr_assert_not_null(big);
    memset(big, ' ', n);
    big[0] = '{';
    big[n - 1] = '}';
    big[n] = '\0';
    rod_issues iss;
    rod_issues_init(&iss);
    cr_assert_null(rod_model_compile(big, n, NULL, 0, &iss));
    cr_assert(strstr(iss.items[0].message, "more than the"));
    rod_issues_free(&iss);
    free(big);
}

/* A suite of its own, which valgrind leaves to ASan: 586 coordinates take 9 s here natively
 * and minutes under valgrind. */
Test(spec_largest, the_largest_model_the_parser_allows_compiles_and_runs)
{
    /* every component at the highest degree and the most Hermite pieces: the fixed-size
     * scratch of the bases must hold them (an ASan run once caught it too small) */
    const char *json =
        "{\"model\": \"extended\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
        "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 30, \"bend2\": 30, "
        "\"twist\": 30, \"shear1\": 30, \"shear2\": 30, \"stretch\": 30}, \"inflation\": {\"pieces\": 200, "
        "\"boundary\": \"mixed\"}}";
    rod_model *m = tu_model(json);
    cr_assert_eq(rod_model_ndof(m), 6 * 31 + 400);
    char err[128];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st);
    cr_assert_eq(rod_dynamics_start(m, st), ROD_OK);
    rod_frame f;
    cr_assert_eq(rod_frame_compute(m, st, 5, &f), ROD_OK);
    cr_assert_float_eq(f.position[3 * 4 + 2], 0.5, 1e-9);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(spec, authors_code_options)
{
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, "
           "\"authors_code\": {\"global_quadrature\": 1, \"slopes\": true}}",
           "/authors_code/global_quadrature: must be true or false");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, "
           "\"authors_code\": {\"slopes\": true}}", "/authors_code/slopes: unknown key");
    expect("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, \"authors_code\": true}",
           "/authors_code: must be an object");
    /* their 20 Gauss points by default, discretization.points when it says */
    rod_model *m = tu_model("{\"model\": \"extended\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, "
                            "\"inflation\": {\"pieces\": 4, \"boundary\": \"neumann\"}, "
                            "\"loads\": [{\"name\": \"f\", \"type\": \"point_force\", \"s\": 0.2, \"force\": [1, 0, 0]}], "
                            "\"authors_code\": {\"global_quadrature\": true, \"no_cable_work_on_inflation\": true, "
                            "\"damping_slips\": true, \"slope_per_X\": true, \"mass_rate_slip\": true}}");
    cr_assert_eq(rod_model_quadrature_points(m), 20);
    rod_model_free(m);
    m = tu_model("{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, "
                 "\"discretization\": {\"points\": 12}, \"authors_code\": {\"global_quadrature\": true}}");
    cr_assert_eq(rod_model_quadrature_points(m), 12);
    rod_model_free(m);
}

#define CLASSIC_HEAD "{\"model\": \"classic\", " ROD_OK_BODY ", \"strains\": {\"bend2\": 3}, "

Test(spec, obstacles_and_friction_are_checked_by_path)
{
    expect(CLASSIC_HEAD "\"environment\": {\"obstacles\": [{\"type\": \"wall\", \"stiffness\": 1}]}}",
           "/environment/obstacles/0/type: must be one of \"plane\", \"sphere\", \"cylinder\"");
    expect(CLASSIC_HEAD "\"environment\": {\"obstacles\": [{\"type\": \"plane\", \"point\": [0, 0, 0], "
           "\"normal\": [0, 0, 0], \"stiffness\": 1}]}}",
           "/environment/obstacles/0/normal: must not be the zero vector");
    expect(CLASSIC_HEAD "\"environment\": {\"obstacles\": [{\"type\": \"sphere\", \"center\": [0, 0, 1], "
           "\"radius\": 0.1}]}}",
           "/environment/obstacles/0/stiffness: is required");
    expect(CLASSIC_HEAD "\"environment\": {\"obstacles\": [{\"type\": \"sphere\", \"center\": [0, 0, 1], "
           "\"radius\": 0.1, \"normal\": [1, 0, 0], \"stiffness\": 1}]}}",
           "/environment/obstacles/0/normal: not allowed for a sphere");
    expect(CLASSIC_HEAD "\"environment\": {\"obstacles\": [{\"type\": \"plane\", \"point\": [0, 0, 0], "
           "\"normal\": [1, 0, 0], \"stiffness\": 1, \"friction\": {\"static\": 0.1, \"kinetic\": [0.1, 0.2, 0.05]}}]}}",
           "/environment/obstacles/0/friction/kinetic: must not exceed the static coefficient");
    expect(CLASSIC_HEAD "\"environment\": {\"obstacles\": [{\"type\": \"plane\", \"point\": [0, 0, 0], "
           "\"normal\": [1, 0, 0], \"stiffness\": 1, \"friction\": {\"static\": [0.1, -1, 0.2], \"kinetic\": 0}}]}}",
           "/environment/obstacles/0/friction/static/1: must be >= 0");
    expect(CLASSIC_HEAD "\"environment\": {\"self_contact\": {\"damping\": 1}}}",
           "/environment/self_contact/stiffness: is required");
    /* friction between rods: one coefficient each, the obstacles' checks */
    expect(CLASSIC_HEAD "\"environment\": {\"self_contact\": {\"stiffness\": 1, \"friction\": {\"static\": "
           "[0.5, 0.5, 0.4], \"kinetic\": 0.3}}}}",
           "/environment/self_contact/friction/static: must be a number >= 0 (friction between rods is the same in "
           "every direction)");
    expect(CLASSIC_HEAD "\"environment\": {\"self_contact\": {\"stiffness\": 1, \"friction\": {\"static\": 0.2, "
           "\"kinetic\": 0.3}}}}",
           "/environment/self_contact/friction/kinetic: must not exceed the static coefficient");
    expect(CLASSIC_HEAD "\"environment\": {\"self_contact\": {\"stiffness\": 1, \"friction\": {\"kinetic\": 0.3}}}}",
           "/environment/self_contact/friction/static: is required");
    expect(CLASSIC_HEAD "\"environment\": {\"self_contact\": {\"stiffness\": 1, \"friction\": {\"static\": 0.5, "
           "\"kinetic\": 0.3, \"threshold_velocity\": 0}}}}",
           "/environment/self_contact/friction/threshold_velocity");
    expect(CLASSIC_HEAD "\"environment\": {\"self_contact\": {\"stiffness\": 1, \"friction\": 0.5}}}",
           "/environment/self_contact/friction: must be an object");
}

Test(spec, slender_body_flow_takes_a_viscosity_and_nothing_of_water)
{
    expect(CLASSIC_HEAD "\"environment\": {\"fluid\": {\"model\": \"slender_body\", \"density\": 1000}}}",
           "/environment/fluid/viscosity: is required");
    expect(CLASSIC_HEAD "\"environment\": {\"fluid\": {\"model\": \"slender_body\", \"density\": 1000, "
           "\"viscosity\": 1}}}",
           "/environment/fluid/density: not allowed for model \"slender_body\"");
    expect(CLASSIC_HEAD "\"environment\": {\"fluid\": {\"density\": 1000, \"viscosity\": 1}}}",
           "/environment/fluid/viscosity: only for model \"slender_body\"");
}

Test(spec, muscle_torque_keys_are_checked_by_path)
{
    expect(CLASSIC_HEAD "\"actuators\": [{\"name\": \"m\", \"type\": \"muscle_torque\", \"about\": \"d3\", "
           "\"beta\": [0, 1, 0], \"period\": 1}]}",
           "/actuators/0/about: must be one of \"d1\", \"d2\"");
    expect(CLASSIC_HEAD "\"actuators\": [{\"name\": \"m\", \"type\": \"muscle_torque\", \"about\": \"d1\", "
           "\"beta\": [1], \"period\": 1}]}",
           "/actuators/0/beta: must be an array of 2 to 32 values");
    expect(CLASSIC_HEAD "\"actuators\": [{\"name\": \"m\", \"type\": \"muscle_torque\", \"about\": \"d1\", "
           "\"beta\": [0, \"X*2\"], \"period\": 1}]}",
           "/actuators/0/beta/1:");
    expect(CLASSIC_HEAD "\"actuators\": [{\"name\": \"m\", \"type\": \"muscle_torque\", \"about\": \"d1\", "
           "\"beta\": [0, 1], \"period\": 0, \"tension\": 1}]}",
           "/actuators/0/period: must be > 0");
    expect(CLASSIC_HEAD "\"actuators\": [{\"name\": \"m\", \"type\": \"muscle_torque\", \"about\": \"d1\", "
           "\"beta\": [0, 1], \"period\": 1, \"tension\": 1}]}",
           "/actuators/0/tension: not allowed for a muscle_torque actuator");
    expect(CLASSIC_HEAD "\"actuators\": [{\"name\": \"c\", \"type\": \"cable\", \"route\": {\"offset\": [0.5, 0]}, "
           "\"tension\": 1, \"wavelength\": 1}]}",
           "/actuators/0/wavelength: only for a muscle_torque actuator");
}

Test(spec, shear_modulus_or_poisson_ratio)
{
    const char *head = "{\"model\": \"classic\", \"strains\": {\"bend2\": 3}, \"rod\": {\"length\": 0.5, "
                       "\"radius\": 0.01, \"density\": 1000, \"youngs_modulus\": 1e5";
    char json[512];
    snprintf(json, sizeof json, "%s, \"poisson_ratio\": 0.3, \"shear_modulus\": 4e4}}", head);
    expect(json, "/rod/shear_modulus: give poisson_ratio or shear_modulus, not both");
    snprintf(json, sizeof json, "%s}}", head);
    expect(json, "/rod/poisson_ratio: is required (or give shear_modulus instead)");
    snprintf(json, sizeof json, "%s, \"shear_modulus\": -1}}", head);
    expect(json, "/rod/shear_modulus: must be > 0");
    snprintf(json, sizeof json, "%s, \"shear_modulus\": 1e4, \"shear_coefficient\": 0}}", head);
    expect(json, "/rod/shear_coefficient: must be > 0");
    /* the classic rod takes any G; the extended one needs the implied Poisson ratio in (-1, 0.5) */
    snprintf(json, sizeof json, "%s, \"shear_modulus\": 1e3, \"shear_coefficient\": 1.3333}}", head);
    rod_model_free(tu_model(json));
    expect("{\"model\": \"extended\", \"strains\": {\"stretch\": 1}, \"inflation\": {\"pieces\": 1, "
           "\"boundary\": \"neumann\"}, \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
           "\"youngs_modulus\": 1e5, \"shear_modulus\": 1e3}}",
           "/rod/shear_modulus: must be > youngs_modulus / 3 for model \"extended\"");
}

/* did you mean: one slip (a missing, extra, changed or swapped letter) finds the word; a word
 * that shares little with every candidate finds none; the closest of several wins */
Test(spec, rest_strain_is_checked_by_path)
{
    const char *head = "{\"model\": \"classic\", \"strains\": {\"bend2\": 3}, \"rod\": {\"length\": 0.5, "
                       "\"radius\": 0.01, \"density\": 1000, \"youngs_modulus\": 1e5, \"poisson_ratio\": 0.3, "
                       "\"rest_strain\": ";
    char json[1024];
    snprintf(json, sizeof json, "%s{\"bend3\": 1}}}", head);
    expect(json, "/rod/rest_strain/bend3: unknown key");
    snprintf(json, sizeof json, "%s[1]}}", head);
    expect(json, "/rod/rest_strain: must be an object");
    snprintf(json, sizeof json, "%s{\"twist\": true}}}", head);
    expect(json, "/rod/rest_strain/twist: must be a number or an expression string in s (m) and X = s/L");
    snprintf(json, sizeof json, "%s{\"bend1\": \"2*t\"}}}", head);
    expect(json, "/rod/rest_strain/bend1: invalid expression at column 3: t (time) is not allowed here");
    snprintf(json, sizeof json, "%s{\"bend2\": \"2*s+\"}}}", head);
    expect(json, "/rod/rest_strain/bend2: invalid expression at column 5");
    snprintf(json, sizeof json, "%s{\"stretch\": 0}}}", head);
    expect(json, "/rod/rest_strain/stretch: must be > 0");
    /* an expression's values are checked where the model uses them */
    snprintf(json, sizeof json, "%s{\"bend2\": \"1/X\"}}}", head);
    expect(json, "/rod/rest_strain/bend2: is not finite at s = 0 m (X = 0)");
    snprintf(json, sizeof json, "%s{\"stretch\": \"1 - 2*X\"}}}", head);
    expect(json, "/rod/rest_strain/stretch: must be > 0 (the rest length per unit of s) at s = ");
    /* s, X and muparser's constants are allowed; a component left out rests at 0 (stretch 1) */
    snprintf(json, sizeof json, "%s{\"bend2\": \"2*_pi*X + s\", \"stretch\": 1.1, \"shear1\": -0.1}}}", head);
    rod_model *m = tu_model(json);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 3);
    /* muparser's _pi is 3.141592653589 (12 decimals): 1.6e-12 short of 2 pi here */
    cr_assert_float_eq(f.kappa[3 * 2 + 1], 2 * M_PI + 0.5, 1e-11, "%.17g", f.kappa[3 * 2 + 1]);
    cr_assert_float_eq(f.kappa[3 * 2 + 0], 0.0, 1e-15);
    cr_assert_float_eq(f.nu[3 * 1 + 0], -0.1, 1e-15);
    cr_assert_float_eq(f.nu[3 * 1 + 1], 0.0, 1e-15);
    cr_assert_float_eq(f.nu[3 * 1 + 2], 1.1, 1e-15);
    /* the rest shape's volume is the reference: none changes at rest */
    cr_assert_float_eq(f.volume_change, 0.0, 1e-14);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(suggest, nearest_known_word_or_none)
{
    const char *const keys[] = {"poisson_ratio", "youngs_modulus", "density", "radius", "length", NULL};
    cr_assert_str_eq(rod_suggest("poison_ratio", keys), "poisson_ratio");
    cr_assert_str_eq(rod_suggest("densiyt", keys), "density");
    cr_assert_str_eq(rod_suggest("raduis", keys), "radius");
    cr_assert_str_eq(rod_suggest("lengths", keys), "length");
    cr_assert_null(rod_suggest("colour", keys));
    cr_assert_null(rod_suggest("density", keys), "an exact match is not a suggestion");
    const char *const cmds[] = {"solve", "sweep", "serve", NULL};
    cr_assert_str_eq(rod_suggest("serv", cmds), "serve");
    cr_assert_null(rod_suggest("run", cmds));
}
