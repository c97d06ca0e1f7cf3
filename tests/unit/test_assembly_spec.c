/* A spec of several rods refused where it is wrong, by JSON path (issue 29): unknown joint
 * targets, names used twice, joints in a cycle, a hinge without its axis, keys that belong in
 * each rod; and a one-rod spec's inputs addressed as ROD.NAME in a model of several. */
#include "assembly.h"
#include "model.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROD "\"model\": \"classic\", \"rod\": {\"length\": 0.2, \"radius\": 0.01, \"density\": 1000, " \
            "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 2}"
#define JOINT(to, kind) "\"base\": {\"type\": \"joint\", \"to\": {\"rod\": \"" to "\"}, \"joint\": \"" kind "\"}"

static void refused(const char *json, const char *want)
{
    const char *got = tu_issues(json);
    cr_expect(strstr(got, want), "expected \"%s\" in:\n%s", want, got);
}

Test(assembly_spec, unknown_joint_target)
{
    refused("{\"rods\": [{\"name\": \"a\", " ROD "}, {\"name\": \"b\", " ROD ", " JOINT("c", "fixed") "}]}",
            "/rods/1/base/to/rod: no rod named \"c\"");
}

Test(assembly_spec, duplicate_names)
{
    refused("{\"rods\": [{\"name\": \"a\", " ROD "}, {\"name\": \"a\", " ROD "}]}",
            "/rods/1/name: \"a\" names another rod");
}

Test(assembly_spec, cycle_of_joints)
{
    refused("{\"rods\": [{\"name\": \"a\", " ROD ", " JOINT("b", "ball") "}, {\"name\": \"b\", " ROD ", "
            JOINT("a", "ball") "}]}",
            "/rods/0/base/to: the joints make a cycle");
}

Test(assembly_spec, hinge_without_axis)
{
    refused("{\"rods\": [{\"name\": \"a\", " ROD "}, {\"name\": \"b\", " ROD ", " JOINT("a", "hinge") "}]}",
            "/rods/1/base/axis: a hinge needs its axis");
}

Test(assembly_spec, one_rod_keys_at_the_top_and_a_rods_own_problems_under_its_path)
{
    refused("{\"model\": \"classic\", \"rods\": [{\"name\": \"a\", " ROD "}]}",
            "/model: belongs in each rod");
    refused("{\"rods\": [{\"name\": \"a\", \"model\": \"classic\", \"rod\": {\"length\": -1, \"radius\": 0.01, "
            "\"density\": 1000, \"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 2}}]}",
            "/rods/0/rod/length");
}

Test(assembly_spec, inputs_are_addressed_by_rod)
{
    rod_model *m = tu_model("{\"rods\": [{\"name\": \"a\", " ROD ", \"loads\": [{\"name\": \"F\", \"type\": "
                            "\"tip_force\", \"force\": [0, 0.01, 0]}]}, {\"name\": \"arm3\", " ROD ", "
                            JOINT("a", "fixed") ", \"actuators\": [{\"name\": \"LM1\", \"type\": \"cable\", "
                            "\"route\": {\"offset\": [0.005, 0]}, \"tension\": 0.1}]}]}");
    cr_assert_eq(rod_model_ninputs(m), 2);
    cr_assert_str_eq(rod_model_input_name(m, 0), "a.F"); /* rod 0's, whose model holds the rest */
    cr_assert_str_eq(rod_model_input_type(m, 0), "tip_force");
    cr_assert_eq(rod_model_input_is_actuator(m, 0), 0);
    cr_assert_str_eq(rod_model_input_name(m, 1), "arm3.LM1");
    cr_assert_str_eq(rod_model_input_type(m, 1), "cable");
    cr_assert_eq(rod_model_input_is_actuator(m, 1), 1);
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    cr_assert_eq(rod_state_set_input(st, "arm3.LM1", 0.2), ROD_OK, "%s", rod_state_error(st));
    cr_assert_eq(rod_state_set_input(st, "a.F", 0.5), ROD_OK, "%s", rod_state_error(st));
    double v = 0;
    cr_assert(rod_state_input_constant(st, 1, &v));
    cr_assert_float_eq(v, 0.2, 0);
    cr_assert(rod_state_input_constant(st, 0, &v));
    cr_assert_float_eq(v, 0.5, 0);
    cr_assert_float_eq(rod_state_input_value(st, 0, 1.0), 0.5, 0);
    cr_assert_eq(rod_state_set_input(st, "LM1", 0.2), ROD_ENOTFOUND);
    rod_state_free(st);
    rod_model_free(m);
}

Test(assembly_spec, a_checkpoint_continues_as_the_state_it_came_from, .timeout = 60)
{
    rod_model *m = tu_model("{\"environment\": {\"gravity\": [0, 0, -9.81]}, \"rods\": [{\"name\": \"a\", " ROD
                            "}, {\"name\": \"b\", " ROD ", \"base\": {\"type\": \"joint\", \"to\": {\"rod\": \"a\"}, "
                            "\"joint\": \"ball\", \"rotation\": {\"axis\": [0, 1, 0], \"angle\": 0.5}}}]}");
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.02), ROD_OK, "%s", rod_state_error(st));
    cr_assert_eq(rod_state_set_input(st, "x", 1), ROD_ENOTFOUND);
    char *cp = rod_state_save(m, st);
    cr_assert_not_null(cp, "%s", rod_state_error(st));
    cr_assert_eq(rod_dynamics_advance(m, st, 0.04), ROD_OK, "%s", rod_state_error(st));
    char err[256];
    rod_state *s2 = rod_state_create(m, err, sizeof err);
    cr_assert_eq(rod_dynamics_start_for_load(m, s2), ROD_OK);
    cr_assert_eq(rod_state_load(m, s2, cp, strlen(cp)), ROD_OK, "%s", rod_state_error(s2));
    cr_assert_eq(rod_dynamics_advance(m, s2, 0.04), ROD_OK, "%s", rod_state_error(s2));
    const int n = rod_model_ndof(m);
    cr_assert_eq(memcmp(rod_state_q(st), rod_state_q(s2), (size_t)n * sizeof(double)), 0,
                 "the restored state goes on bit for bit");
    cr_assert_eq(rod_state_load(m, s2, "{\"t\": 0}", 8), ROD_EINVAL);
    free(cp);
    rod_state_free(s2);
    rod_state_free(st);
    rod_model_free(m);
}

/* The first rod's inputs (its model and state are the assembly's own) and one name in two rods:
 * the daemon asked rod_state_input_constant of a rod-0 input at every publish and recursed until
 * the stack ran out (a POST of such a spec killed it), rod_model_input_type looped forever. */
Test(assembly_spec, inputs_of_the_first_rod_and_one_name_in_two_rods)
{
#define LIFT(v) "\"actuators\": [{\"name\": \"lift\", \"type\": \"cable\", \"route\": {\"offset\": [0.005, 0]}, " \
                "\"tension\": " v "}]"
    rod_model *m = tu_model("{\"rods\": [{\"name\": \"a\", " ROD ", " LIFT("0.1") "}, {\"name\": \"b\", " ROD ", "
                            JOINT("a", "fixed") ", " LIFT("\"0.3*t\"") "}]}");
#undef LIFT
    cr_assert_eq(rod_model_ninputs(m), 2);
    cr_assert_str_eq(rod_model_input_name(m, 0), "a.lift");
    cr_assert_str_eq(rod_model_input_name(m, 1), "b.lift");
    /* the session's description asks these of every input (they looped forever for rod 0) */
    cr_assert_str_eq(rod_model_input_type(m, 0), "cable");
    cr_assert_eq(rod_model_input_is_actuator(m, 0), 1);
    cr_assert_str_eq(rod_model_input_type(m, 1), "cable");
    cr_assert_null(rod_model_input_type(m, 2));
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    double v = 0;
    cr_assert(rod_state_input_constant(st, 0, &v));
    cr_assert_float_eq(v, 0.1, 0);
    cr_assert_not(rod_state_input_constant(st, 1, &v), "b.lift is a profile in t");
    cr_assert_eq(rod_state_set_input(st, "a.lift", 0.2), ROD_OK, "%s", rod_state_error(st));
    cr_assert(rod_state_input_constant(st, 0, &v));
    cr_assert_float_eq(v, 0.2, 0);
    cr_assert_not(rod_state_input_constant(st, 2, &v));
    /* a profile for either rod's input (rod 0's was "no actuator or load named \"lift\"") */
    char perr[256] = "";
    cr_assert_eq(rod_model_check_input_profile(m, "a.lift", "\"0.1*t\"", perr, sizeof perr), ROD_OK, "%s", perr);
    cr_assert_eq(rod_model_check_input_profile(m, "b.lift", "\"0.1*t\"", perr, sizeof perr), ROD_OK, "%s", perr);
    cr_assert_eq(rod_state_set_input_profile(st, "a.lift", "\"0.1*t\""), ROD_OK, "%s", rod_state_error(st));
    cr_assert_not(rod_state_input_constant(st, 0, &v));
    cr_assert_eq(rod_state_set_input_profile(st, "a.lift", NULL), ROD_OK, "%s", rod_state_error(st));
    cr_assert(rod_state_input_constant(st, 0, &v));
    cr_assert_float_eq(v, 0.1, 0);
    cr_assert_eq(rod_model_check_input_profile(m, "a.lift", "\"nan\"", perr, sizeof perr), ROD_EINVAL);
    cr_assert(!strncmp(perr, "a.lift: ", 8), "the input named as the client names it: %s", perr);
    cr_assert_eq(rod_state_set_input_profile(st, "b.lift", "\"sin(\""), ROD_EINVAL);
    cr_assert(!strncmp(rod_state_error(st), "b.lift: ", 8), "%s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
}

/* A top-level body's own problems under its own path (they were /bodies/0/bodies/0/mass), a
 * joint's vector under its key, unknown keys in a joint's rotation. */
Test(assembly_spec, body_and_joint_problems_under_their_own_paths)
{
    refused("{\"rods\": [{\"name\": \"a\", " ROD "}], \"bodies\": [{\"name\": \"o\", \"mass\": 1, \"inertia\": [1, 1, 1], \"base\": {\"type\": \"fixed\"}}, {\"name\": \"hub\", "
            "\"mass\": \"1\", \"inertia\": [1, 1, 1], \"base\": {\"type\": \"fixed\"}}]}",
            "/bodies/1/mass: must be a number");
    cr_expect_null(strstr(tu_issues("{\"rods\": [{\"name\": \"a\", " ROD "}], \"bodies\": [{\"name\": \"hub\", "
                                    "\"mass\": \"1\", \"inertia\": [1, 1, 1], \"base\": {\"type\": \"fixed\"}}]}"),
                          "/bodies/0/bodies"));
    refused("{\"rods\": [{\"name\": \"a\", " ROD "}, {\"name\": \"b\", " ROD ", \"base\": {\"type\": \"joint\", "
            "\"to\": {\"rod\": \"a\"}, \"joint\": \"hinge\", \"axis\": [1, 0]}}]}",
            "/rods/1/base/axis: must be an array of 3 numbers");
    refused("{\"rods\": [{\"name\": \"a\", " ROD "}, {\"name\": \"b\", " ROD ", \"base\": {\"type\": \"joint\", "
            "\"to\": {\"rod\": \"a\"}, \"joint\": \"ball\", \"rotation\": {\"axis\": [0, 0, 1], \"angle\": 1, \"angel\": 2}}}]}",
            "/rods/1/base/rotation: has an unknown key \"angel\"");
}

/* An axis of huge components is a direction like any other: its norm overflowed to inf and the
 * hinge's axis became (0, 0, 0), accepted, then the joint's rows were singular at start. */
Test(assembly_spec, huge_axes_are_directions)
{
    const char *rest = "{\"rods\": [{\"name\": \"a\", " ROD "}, {\"name\": \"b\", " ROD ", \"base\": {\"type\": \"joint\", "
                       "\"to\": {\"rod\": \"a\"}, \"joint\": \"hinge\", \"axis\": [1e308, 0, 1e308]}}]}";
    rod_model *m = tu_model(rest);
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    cr_assert_eq(rod_dynamics_start(m, st), ROD_OK, "%s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
    refused("{\"rods\": [{\"name\": \"a\", " ROD "}, {\"name\": \"b\", " ROD ", \"base\": {\"type\": \"joint\", "
            "\"to\": {\"rod\": \"a\"}, \"joint\": \"hinge\", \"axis\": [0, 0, 0]}}]}",
            "/rods/1/base/axis: must not be zero");
}

/* A one-rod key beside "rods" is reported once, where it belongs, not also as unknown */
Test(assembly_spec, a_one_rod_key_at_the_top_is_reported_once)
{
    const char *got = tu_issues("{\"rod\": {}, \"rods\": [{\"name\": \"a\", " ROD "}]}");
    cr_expect(strstr(got, "/rod: belongs in each rod"), "%s", got);
    cr_expect_null(strstr(got, "unknown key \"rod\""), "%s", got);
}

/* A joint's base with its type mistyped: said so, not "must be clamped, moving or free" with
 * "to" and "joint" called unknown keys */
Test(assembly_spec, a_joint_with_a_mistyped_type)
{
    refused("{\"rods\": [{\"name\": \"a\", " ROD "}, {\"name\": \"b\", " ROD ", \"base\": {\"type\": \"jiont\", "
            "\"to\": {\"rod\": \"a\"}, \"joint\": \"fixed\"}}]}",
            "/rods/1/base/type: must be \"joint\" for a base with \"to\" or \"joint\"");
}

/* A moving top-level body's profiles are checked by the one-rod parser, under the body's own
 * path; a fixed body's position stays numbers; an unknown base type names the three. */
Test(assembly_spec, moving_body_problems_under_their_own_paths)
{
#define HUB(base) "{\"rods\": [{\"name\": \"a\", " ROD "}], \"bodies\": [{\"name\": \"hub\", \"mass\": 1, " \
                  "\"inertia\": [1, 1, 1], \"base\": " base "}]}"
    refused(HUB("{\"type\": \"moving\", \"position\": [0, \"2*tt\", 0]}"), "/bodies/0/base/position/1");
    refused(HUB("{\"type\": \"moving\", \"rotation\": {\"axis\": [0, 0, 0], \"angle\": \"t\"}}"),
            "/bodies/0/base/rotation/axis");
    refused(HUB("{\"type\": \"moving\", \"speed\": 1}"), "/bodies/0/base: has an unknown key \"speed\"");
    refused(HUB("{\"type\": \"fixed\", \"position\": [0, \"t\", 0]}"),
            "/bodies/0/base/position: must be an array of 3 numbers");
    refused(HUB("{\"type\": \"flying\"}"), "/bodies/0/base: must be {\"type\": \"fixed\", \"moving\" or \"free\"");
    rod_model *m = tu_model(HUB("{\"type\": \"moving\", \"position\": [\"0.1*t\", 0, 0], \"rotation\": "
                                "{\"axis\": [0, 0, 1], \"angle\": \"sin(t)\"}}"));
    rod_model_free(m);
#undef HUB
}

/* A penalty joint's keys as a pose constraint's: its stiffness required and positive, no
 * stiffness or damping with multipliers, the method one of the two. */
Test(assembly_spec, penalty_joint_problems_under_their_own_paths)
{
#define PJ(extra) "{\"rods\": [{\"name\": \"a\", " ROD "}, {\"name\": \"b\", " ROD ", \"base\": {\"type\": \"joint\", " \
                  "\"to\": {\"rod\": \"a\"}, \"joint\": \"ball\"" extra "}}]}"
    refused(PJ(", \"method\": \"penalty\""), "/rods/1/base/stiffness: a penalty joint needs its stiffness");
    refused(PJ(", \"method\": \"penalty\", \"stiffness\": -1"), "/rods/1/base/stiffness: a penalty joint needs");
    refused(PJ(", \"method\": \"penalty\", \"stiffness\": 10, \"damping\": \"x\""), "/rods/1/base/damping: must be a number");
    refused(PJ(", \"stiffness\": 10"), "/rods/1/base/stiffness: is not allowed with method \"multiplier\"");
    refused(PJ(", \"method\": \"spring\""), "/rods/1/base/method: must be \"multiplier\" or \"penalty\"");
    rod_model *m = tu_model(PJ(", \"method\": \"penalty\", \"stiffness\": 1e4, \"damping\": 2"));
    cr_assert(m->as->joint[0].penalty && m->as->joint[0].stiffness == 1e4 && m->as->joint[0].damping == 2);
    rod_model_free(m);
#undef PJ
}

/* A rod's own constraints are taken in a model of several rods; "base" names its joint there. */
Test(assembly_spec, a_rods_constraints_are_taken_but_not_named_base)
{
#define PINNED(nm) "{\"rods\": [{\"name\": \"a\", " ROD ", \"constraints\": [{\"name\": \"" nm "\", \"type\": \"pose\", " \
                   "\"position\": [0, 0, 0.2]}]}]}"
    refused(PINNED("base"), "/rods/0/constraints/0/name: \"base\" names the rod's joint");
    rod_model *m = tu_model(PINNED("pin"));
    rod_model_free(m);
#undef PINNED
}

/* The same with what this session added: a moving body, a penalty joint, a rod's own held tip
 * (where it is at rest, and the body starting from rest: a consistent start). */
#define ROD3 "\"model\": \"classic\", \"rod\": {\"length\": 0.2, \"radius\": 0.01, \"density\": 1000, " \
             "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 2, \"bend2\": 2, \"stretch\": 1}"
Test(assembly_spec, a_checkpoint_of_moving_penalty_and_constrained_rods_continues, .timeout = 60)
{
    rod_model *m = tu_model(
        "{\"environment\": {\"gravity\": [0, 0, -9.81]}, \"bodies\": [{\"name\": \"cart\", \"mass\": 1, \"inertia\": "
        "[1, 1, 1], \"base\": {\"type\": \"moving\", \"position\": [\"0.05*(1-cos(3*t))\", 0, 0]}}], \"rods\": [{\"name\": "
        "\"a\", " ROD3 ", \"base\": {\"type\": \"joint\", \"to\": {\"body\": \"cart\"}, \"joint\": \"fixed\", \"method\": "
        "\"penalty\", \"stiffness\": 1e3, \"damping\": 0.1}}, {\"name\": \"b\", " ROD3 ", \"base\": {\"type\": \"joint\", "
        "\"to\": {\"rod\": \"a\"}, \"joint\": \"ball\"}, \"constraints\": [{\"name\": \"pin\", \"type\": \"pose\", "
        "\"position\": [0, 0, 0.400001]}]}]}"); /* b's tip at rest (the cart's stub: 1 um) */
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.02), ROD_OK, "%s", rod_state_error(st));
    char *cp = rod_state_save(m, st);
    cr_assert_not_null(cp, "%s", rod_state_error(st));
    cr_assert_eq(rod_dynamics_advance(m, st, 0.04), ROD_OK, "%s", rod_state_error(st));
    char err[256];
    rod_state *s2 = rod_state_create(m, err, sizeof err);
    cr_assert_eq(rod_dynamics_start_for_load(m, s2), ROD_OK);
    cr_assert_eq(rod_state_load(m, s2, cp, strlen(cp)), ROD_OK, "%s", rod_state_error(s2));
    cr_assert_eq(rod_dynamics_advance(m, s2, 0.04), ROD_OK, "%s", rod_state_error(s2));
    const int n = rod_model_ndof(m);
    cr_assert_eq(memcmp(rod_state_q(st), rod_state_q(s2), (size_t)n * sizeof(double)), 0,
                 "the restored state goes on bit for bit");
    rod_frame f = tu_frame(m, s2, 2);
    cr_assert_eq(f.ncons, 3);
    cr_assert_str_eq(f.cons[2].name, "b.pin");
    cr_assert_lt(fabs(f.cons[2].violation), 1e-8, "%g %g %g", f.cons[2].violation, f.cons[0].violation, f.cons[1].violation);
    rod_frame_free(&f);
    free(cp);
    rod_state_free(s2);
    rod_state_free(st);
    rod_model_free(m);
}
