/* The "constraints" and "bodies" sections: every problem named by its JSON pointer. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static const char *with(const char *model, const char *cons)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"model\": \"%s\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
             "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 2}, "
             "\"constraints\": [%s]}", model, cons);
    return buf;
}

static void expect(const char *json, const char *needle)
{
    const char *got = tu_issues(json);
    cr_assert(strstr(got, needle), "expected \"%s\" in:\n%s", needle, got);
}

Test(spec_constraints, bad_constraints_are_named_by_path)
{
    expect(with("classic", "{\"name\": \"a\", \"type\": \"pose\"}"),
           "/constraints/0: a pose constraint needs \"position\", \"rotation\" or \"components\"");
    expect(with("classic", "{\"name\": \"a\", \"type\": \"pose\", \"components\": [\"x\", \"w\"]}"),
           "/constraints/0/components/1: must be one of");
    expect(with("classic", "{\"name\": \"a\", \"type\": \"pose\", \"components\": [\"x\", \"x\"]}"),
           "/constraints/0/components/1: \"x\" is listed twice");
    expect(with("classic", "{\"name\": \"a\", \"type\": \"pose\", \"s\": 0, \"components\": [\"x\"]}"),
           "/constraints/0/s: must be in (0, length]");
    expect(with("classic", "{\"name\": \"a\", \"type\": \"pose\", \"position\": [0, 0]}"),
           "/constraints/0/position: must be an array of 3");
    expect(with("classic", "{\"name\": \"a\", \"type\": \"pose\", \"rotation\": {\"axis\": [0, 0, 0], \"angle\": 1}}"),
           "/constraints/0/rotation/axis: must not be the zero vector");
    expect(with("classic", "{\"name\": \"a\", \"type\": \"pose\", \"position\": [\"t +\", 0, 0]}"),
           "/constraints/0/position/0:");
    expect(with("classic", "{\"name\": \"v\", \"type\": \"volume\"}"),
           "/constraints/0/type: \"volume\" needs model \"extended\"");
    expect(with("classic", "{\"name\": \"a\", \"type\": \"pose\", \"components\": [\"x\"], \"method\": \"penalty\"}"),
           "/constraints/0/stiffness: is required");
    expect(with("classic", "{\"name\": \"a\", \"type\": \"pose\", \"components\": [\"x\"], \"stiffness\": 3}"),
           "/constraints/0/stiffness: not allowed with method \"multiplier\"");
    expect(with("classic", "{\"name\": \"a\", \"type\": \"pose\", \"components\": [\"x\"]}, "
                           "{\"name\": \"a\", \"type\": \"pose\", \"components\": [\"y\"]}"),
           "/constraints/1/name: duplicate name \"a\"");
    expect(with("classic", "{\"name\": \"a\", \"type\": \"pose\", \"components\": [\"x\"], \"relative_to\": {}}"),
           "/constraints/0/relative_to/s: is required");
    expect(with("classic", "{\"name\": \"a\", \"type\": \"pose\", \"components\": [\"x\"], \"relative_to\": {\"s\": 0.5}}"),
           "/constraints/0/relative_to/s: must differ from the constrained point's s");
    expect(with("classic", "{\"name\": \"a\", \"type\": \"pose\", \"s\": 0.2, \"components\": [\"x\"], \"relative_to\": {\"s\": 0.6}}"),
           "/constraints/0/relative_to/s: must be in [0, length]");
    expect(with("classic", "{\"name\": \"a\", \"type\": \"pose\", \"components\": [\"x\"], \"relative_to\": {\"s\": 0, \"frame\": 1}}"),
           "/constraints/0/relative_to/frame:");
    expect(with("extended", "{\"name\": \"v\", \"type\": \"volume\", \"relative_to\": {\"s\": 0}}"),
           "/constraints/0/relative_to: not allowed for a volume constraint");
}

static const char *with_bodies(const char *bodies)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
             "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 2}, "
             "\"bodies\": [%s]}", bodies);
    return buf;
}

Test(spec_constraints, bad_bodies_are_named_by_path)
{
    expect(with_bodies("{\"name\": \"b\"}"), "/bodies/0/mass: is required");
    expect(with_bodies("{\"name\": \"b\", \"mass\": 1, \"inertia\": [1, 2]}"),
           "/bodies/0/inertia: must be 3 principal moments or a 3x3 matrix");
    expect(with_bodies("{\"name\": \"b\", \"mass\": 1, \"inertia\": [[1, 2, 0], [0, 1, 0], [0, 0, 1]]}"),
           "/bodies/0/inertia: must be symmetric");
    expect(with_bodies("{\"name\": \"b\", \"mass\": 1, \"inertia\": [[1, 2, 0], [2, 1, 0], [0, 0, 1]]}"),
           "/bodies/0/inertia: must be positive semidefinite");
    expect(with_bodies("{\"name\": \"b\", \"mass\": 1, \"s\": 0.7}"), "/bodies/0/s: must be in (0, length]");
    expect(with_bodies("{\"name\": \"b\", \"mass\": 1}, {\"name\": \"b\", \"mass\": 2}"),
           "/bodies/1/name: duplicate name \"b\"");
}
