#!/usr/bin/env python3
"""rodd and PyElastica side by side on the same cases, in the same run (issue 30): the ratio is
measured here, not quoted.

PYELASTICA names a checkout of https://github.com/GazzolaLab/PyElastica, run unmodified from
its source tree (never vendored here); Debian's python3-numba, -scipy, -numpy, -tqdm,
-typing-extensions and -mypy-extensions run it (`bash deploy/setup.sh --bench` installs them).
Without PYELASTICA this prints one line and exits 0, so `make bench` skips it.

The cases, with PyElastica's explicit Cosserat rod at n = 50 elements (position Verlet):
  snake       seed 002's lateral undulation (api/examples/snake-lateral-undulation.json: L 1 m,
              r 2.5 cm, E 1e7, anisotropic friction at Froude 0.1 with static twice kinetic,
              muscle couples beta = 0, 17.4, 48.5, 5.4, 14.7, 0 N m, wavelength 0.97 L, period
              1 s ramped over the first), 4 s at dt 1e-4; rodd: `rodd run`, whole process.
              Both print the forward speed over periods 3-4 (L per period).
  cantilever  the first bending mode (tests/bench/specs/cantilever-mode1.json): held by a
              0.01 N tip force and damped to rest, let go, 8 Euler-Bernoulli periods
              (2.2604 s) at dt 1e-5 (the explicit step's stability at E 1e8 and dx 1 cm);
              rodd: bench_dynamics in-process. Both print the period from mean crossings.
  elastica    the static elastica F L^2 / EI = 3 (tests/bench/specs/elastica.json) reached by
              PyElastica through damped dynamics (10 s at dt 1e-4); rodd: bench_statics
              in-process. Both print the tip against rodd's converged solve (bend2 = 12).
  plectoneme  seed 002's Fig. 9b scaled in time (api/examples/plectoneme.json: L 1 m, r 2.5 cm,
              1 kg, E 1e6, G 2E/3, the tip turned 4 times over 10 s, held in x and y and free along
              the axis, a 0.01 N kick at mid-length for 0.5 s, self-contact k_sc 1e8 N/m per m^2),
              15 s at dt 2e-4 (1e-4 gives the same buckling and gap; 4e-4, near the axial wave's
              element crossing dx/c = 4.5e-4 s, buckles 2 s late); rodd: `rodd run --every 0.05`,
              whole process, median of 3. Both print the closest approach of sections more than
              4 r apart along the rod (test_self_contact.c's check; there >= 0.935 less the
              penalty's overlap) and the tip's lowest z.
  solenoid    Fig. 9c scaled in time (api/examples/solenoid.json: the same rod pulled by 300 N,
              then turned 13 times over 13 s from t = 3 s), 20 s at dt 1e-4 (2e-4 diverges once
              it buckles); rodd: `rodd run --every 0.25`, whole process, median of 3. Both print
              the closest distant sections once twisting and, at the end, the writhe of the
              centre line closed along z, the link Tw + Wr (13 while the rod does not pass through itself; each
              passage changes it by 2), the tip's z and the furthest section from the axis
              (test_self_contact.c: writhe > 3, z < 0.5 m, under 2 r).
              The distances are segment to segment (neighbours by the material coordinate) on
              rodd's 101 frame points and on PyElastica's 51 nodes (its polyline is its
              geometry), the same numpy code on both.
What differs by construction: PyElastica has no Kelvin-Voigt law in the rod (0.3 and later),
so its damping is the global AnalyticalLinearDamper (--damping, 1/s); its ground is its own
plane (stiffness k, damping nu per element) where rodd's is a penalty wall. On the twisted rods:
rodd's Kelvin-Voigt shear_viscosity 8e4 Pa s is PyElastica's damper at the seed's gamma = 2 1/s
(--twisted-damping; its examples' value); rodd holds the tip by a penalty pose constraint (1e5
N/m, 100 N s/m), PyElastica's constraint sets the tip's directors and spins exactly; rodd's
centre line is a smooth curve (bending degree 12, 24 on the solenoid) with self-contact between
points every r, PyElastica's 50 straight elements with contact between element pairs (k and nu
per pair = rodd's per m^2 times dx^2, neighbours within 0.8 pi r skipped); PyElastica's axial
force is EA (e - 1) / e, so 300 N stretches its rod to 1.180 m where rodd's reaches 1 + F/EA =
1.153 m. The solenoid's self-contact on PyElastica's side is k_sc 1e8 (--solenoid-contact-k;
the seed's value, PyElastica's SolenoidsCase's k = 1e4 per 1 cm pair), not rodd's 1e9: at 1e9
(or 3e8) PyElastica's rod blows up within a second of coiling (n 50 and 100, dt 1e-4 down to
2e-5, contact nu up to 10); at 1e8 it runs but passes through itself, which its Lk shows.
Written against PyElastica's public API (0.3) and its continuum snake example, and run here
against PyElastica 1.0.0 (its ground is then a Plane with RodPlaneContactWithAnisotropicFriction
through the Contact module; the forcing AnisotropicFrictionalPlane of 0.3 is used where it is).
Usage: PYELASTICA=DIR tests/bench/pyelastica.py [--build build]
       [--cases snake,cantilever,elastica,plectoneme,solenoid] (the default: all five)
"""
import argparse
import inspect
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

SNAKE_SPEC = "api/examples/snake-lateral-undulation.json"
CANTILEVER_SPEC = "tests/bench/specs/cantilever-mode1.json"
ELASTICA_SPEC = "tests/bench/specs/elastica.json"
PLECTONEME_SPEC = "api/examples/plectoneme.json"
SOLENOID_SPEC = "api/examples/solenoid.json"
EB_PERIOD = 0.282552  # the cantilever's first Euler-Bernoulli period (bench/run.sh)


# ---- rodd's side ----------------------------------------------------------------------------

def run_rodd(argv):
    """Runs argv; returns (stdout, CPU s of the whole process from the kernel's accounting)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"pyelastica: {' '.join(argv)} failed")
    return out, usage.ru_utime + usage.ru_stime


def centres(times, points_per_frame, t0, t1):
    """The centre of each frame's points at the frames nearest t0 and t1."""
    def centre_at(t):
        i = min(range(len(times)), key=lambda k: abs(times[k] - t))
        pts = points_per_frame[i]
        return [sum(p[j] for p in pts) / len(pts) for j in range(3)]
    a, b = centre_at(t0), centre_at(t1)
    return a, b


def rodd_frames(build, spec, until, every, points=None, repeat=1):
    """`rodd run` to `until` with a frame (of `points` points; the default without) every
    `every`, `repeat` times: (the median CPU s of the whole process, times, positions per frame,
    the last frame)."""
    argv = [f"{build}/rodd", "run", spec, "--until", str(until), "--every", str(every)]
    if points:
        argv += ["--points", str(points)]
    runs = [run_rodd(argv) for _ in range(repeat)]
    frames = [json.loads(line) for line in runs[-1][0].splitlines() if line.strip()]
    cpu = statistics.median(cpu for _, cpu in runs)
    return cpu, [f["t"] for f in frames], [f["position"] for f in frames], frames[-1]


def rodd_snake(build, until):
    # the median of 3: one run of 0.3 s takes 1.5x its CPU on a core a neighbour loads (seen here)
    cpu, times, positions, _ = rodd_frames(build, SNAKE_SPEC, until, 0.01, repeat=3)
    a, b = centres(times, positions, until - 2, until)
    # the ground's normal is x: the speed is the centre's travel in the y-z plane
    speed = ((b[1] - a[1]) ** 2 + (b[2] - a[2]) ** 2) ** 0.5 / 2.0
    return cpu / until, speed


def rodd_bench_number(out, pattern, what):
    m = re.search(pattern, out)
    if not m:
        sys.exit(f"pyelastica: no {what} in:\n{out}")
    return float(m.group(1))


def rodd_cantilever(build):
    out, _ = run_rodd([f"{build}/bench_dynamics", CANTILEVER_SPEC, "2.2604", "0.005", "3",
                       "--release", "f", "--period", str(EB_PERIOD), "--no-tight"])
    per_s = rodd_bench_number(out, r"([0-9.]+) CPU s per simulated s", "CPU per simulated s")
    period = rodd_bench_number(out, r"period ([0-9.]+) s", "period")
    return per_s, period


def rodd_elastica(build):
    out, _ = run_rodd([f"{build}/bench_statics", ELASTICA_SPEC, "20"])
    solve_ms = rodd_bench_number(out, r"solve CPU median ([0-9.]+) ms", "solve CPU")
    tip = json.loads(run_rodd([f"{build}/rodd", "solve", ELASTICA_SPEC, "--points", "2"])[0])
    tight = json.loads(run_rodd([f"{build}/rodd", "solve", ELASTICA_SPEC, "--points", "2",
                                 "--set", "strains.bend2=12"])[0])
    return solve_ms, tip["frame"]["position"][-1], tight["frame"]["position"][-1]


def rodd_twist(frame):
    """A frame's twist, turns: its kappa_3 integrated along s (tests/support/linking.c)."""
    k3, s = [k[2] for k in frame["kappa"]], frame["s"]
    return sum(0.5 * (k3[i] + k3[i + 1]) * (s[i + 1] - s[i]) for i in range(len(s) - 1)) / (2 * math.pi)


# ---- the twisted rods' checks, the same numpy code on both sides' centre lines ---------------

def closest_distant(points, radius, length=1.0):
    """The closest approach of the polyline's segments lying more than 4 radii apart along the
    rod (test_self_contact.c's neighbours: in the rod's material coordinate, its points spaced
    evenly over `length`, not along the stretched polyline, which would let a tight bend's near
    neighbours in), in diameters. Segment to segment, so rodd's 101 frame
    points (its smooth centre line, as finely as test_self_contact.c samples it) and PyElastica's
    51 nodes (its polyline is its geometry) are measured alike."""
    import numpy as np
    p = np.asarray(points, float)
    s = np.linspace(0.0, length, len(p))
    i, j = np.triu_indices(len(p) - 1, 1)
    far = s[j] - s[i + 1] > 4 * radius + 1e-9
    i, j = i[far], j[far]
    a0, d1, b0, d2 = p[i], p[i + 1] - p[i], p[j], p[j + 1] - p[j]
    w = a0 - b0
    a, b, e = (d1 * d1).sum(1), (d1 * d2).sum(1), (d2 * d2).sum(1)
    c, f = (d1 * w).sum(1), (d2 * w).sum(1)
    den = a * e - b * b
    u = np.where(den > 1e-14 * a * e, np.clip((b * f - c * e) / np.where(den > 0, den, 1), 0, 1), 0.0)
    v = (b * u + f) / e
    u = np.where(v < 0, np.clip(-c / a, 0, 1), np.where(v > 1, np.clip((b - c) / a, 0, 1), u))
    v = np.clip(v, 0, 1)
    gap = np.linalg.norm(w + d1 * u[:, None] - d2 * v[:, None], axis=1)
    return float(gap.min()) / (2 * radius) if len(gap) else float("inf")


def writhe_closed_along_z(points, reach=10.0):
    """Writhe of the centre line closed along the z axis through its ends (up from the tip,
    down from the base, joined far off in one plane with the axis), as test_self_contact.c
    takes it: each pair of segments adds the solid angle it subtends (Klenin and Langowski
    2000), so the polyline is the only approximation."""
    import numpy as np
    p = np.asarray(points, float)
    up, side = np.array([0.0, 0.0, reach]), np.array([reach, 0.0, 0.0])
    p = np.vstack([p[0] - up, p, p[-1] + up, p[-1] + up + side, p[0] - up + side])
    n = len(p)
    i, j = np.triu_indices(n, 2)
    keep = ~((i == 0) & (j == n - 1))  # neighbours through the closure
    i, j = i[keep], j[keep]
    pa, pb, pc, pd = p[i], p[(i + 1) % n], p[j], p[(j + 1) % n]
    r13, r14, r23, r24 = pc - pa, pd - pa, pc - pb, pd - pb
    normals = [np.cross(r13, r14), np.cross(r14, r24), np.cross(r24, r23), np.cross(r23, r13)]
    lengths = [np.linalg.norm(m, axis=1) for m in normals]
    flat = np.any([ln == 0 for ln in lengths], axis=0)  # coplanar: no solid angle
    normals = [m / np.where(ln > 0, ln, 1)[:, None] for m, ln in zip(normals, lengths)]
    omega = sum(np.arcsin(np.clip((normals[k] * normals[(k + 1) % 4]).sum(1), -1, 1)) for k in range(4))
    side_sign = np.sign((np.cross(pd - pc, pb - pa) * r13).sum(1))
    return float(2 * np.where(flat, 0.0, side_sign * omega).sum() / (4 * np.pi))


def plectoneme_check(times, frames, radius, length):
    """(closest distant sections in diameters, when, the tip's lowest z)."""
    gaps = [closest_distant(p, radius, length) for p in frames]
    k = min(range(len(gaps)), key=gaps.__getitem__)
    return gaps[k], times[k], min(p[-1][2] for p in frames)


def solenoid_check(times, frames, radius, length, twist, twist_start=3.0):
    """(closest distant sections in diameters once twisting, and the last frame's writhe, link
    Tw + Wr with its twist `twist` (turns), tip z and furthest section from the axis in radii):
    test_self_contact.c's solenoid checks. Lk stays at the tip's turns while the rod does not
    pass through itself (each passage changes it by 2)."""
    import numpy as np
    gap = min(closest_distant(p, radius, length) for t, p in zip(times, frames) if t >= twist_start)
    last = np.asarray(frames[-1], float)
    wr = writhe_closed_along_z(last)
    return gap, wr, twist + wr, float(last[-1, 2]), float(np.hypot(last[:, 0], last[:, 1]).max()) / radius


# ---- PyElastica's side ----------------------------------------------------------------------

def straight_rod(el, n, direction, normal, length, radius, density, E, G):
    """CosseratRod.straight_rod across PyElastica's versions: 0.3.0-0.3.2 require a damping `nu`
    before youngs_modulus; later ones keep the keyword only to refuse anything but None."""
    import numpy as np
    params = inspect.signature(el.CosseratRod.straight_rod).parameters
    kw = {"youngs_modulus": E, "shear_modulus": G}
    if "nu" in params and params["nu"].default is inspect.Parameter.empty:
        kw["nu"] = 0.0
    return el.CosseratRod.straight_rod(n, np.zeros(3), np.array(direction, float), np.array(normal, float),
                                       length, radius, density, **kw)


def integrate(el, sim, final_time, dt):
    """PyElastica's integrate without its progress bar; returns the CPU s it took."""
    kw = {"progress_bar": False} if "progress_bar" in inspect.signature(el.integrate).parameters else {}
    start = time.process_time()
    el.integrate(el.PositionVerlet(), sim, final_time, int(round(final_time / dt)), **kw)
    return time.process_time() - start


def dampen(el, sim, rod, rate, dt, uniform):
    """PyElastica's exponential damper at `rate` (1/s): ExponentialDamper in 0.3.0,
    AnalyticalLinearDamper later. Its `damping_constant` (what its continuum-snake example
    uses) damps spins by rate * element mass / inertia (PyElastica issue 354), which leaves a
    rod bent by a tip force creeping for tens of seconds: the elastica asks for `uniform`,
    velocities and spins both at `rate`, where the version has it. The snake keeps
    `damping_constant`: with the uniform law at 2.5/s this spec's snake diverges at t = 3.4 s
    (PyElastica 1.0 here)."""
    damper = getattr(el, "AnalyticalLinearDamper", None) or el.ExponentialDamper
    has_uniform = "uniform_damping_constant" in (damper.__doc__ or "")
    key = "uniform_damping_constant" if uniform and has_uniform else "damping_constant"
    sim.dampen(rod).using(damper, time_step=dt, **{key: rate})


def simulator(el):
    mixins = [el.BaseSystemCollection, el.Constraints, el.Forcing, el.Damping, el.CallBacks]
    if hasattr(el, "Contact"):  # 0.4 and later: contact with surfaces is a module of its own
        mixins.append(el.Contact)
    return type("Simulator", tuple(mixins), {})()


def recorder(el, every, what):
    """A callback keeping (time, what(rod)) every `every` steps while armed["on"]."""
    armed = {"on": True}
    rows = []

    class Record(el.CallBackBaseClass):
        def __init__(self):
            super().__init__()

        def make_callback(self, system, time, current_step):
            if armed["on"] and current_step % every == 0:
                rows.append((time, what(system)))
    return Record, rows, armed


def pyelastica_snake(el, until, dt, damping, ground_k, ground_nu):
    import numpy as np
    spec = json.load(open(SNAKE_SPEC))
    rod_spec, ground = spec["rod"], spec["environment"]["obstacles"][0]
    muscle = spec["actuators"][0]
    L = rod_spec["length"]
    # rodd's frame: the rod along z, d1 = x = the ground's normal, gravity along -x
    rod = straight_rod(el, 50, [0, 0, 1], [1, 0, 0], L, rod_spec["radius"], rod_spec["density"],
                       rod_spec["youngs_modulus"], rod_spec["shear_modulus"])
    sim = simulator(el)
    sim.append(rod)
    sim.add_forcing_to(rod).using(el.GravityForces, acc_gravity=np.array(spec["environment"]["gravity"], float))
    beta = [0.0] + [float(b.split("*")[0]) for b in muscle["beta"]] + [0.0]
    mt = {"base_length": L, "b_coeff": np.array(beta), "period": muscle["period"],
          "wave_number": 2.0 * np.pi / (muscle["wavelength"] * L), "phase_shift": muscle["phase"],
          "direction": np.array([1.0, 0.0, 0.0]), "ramp_up_time": muscle["period"], "with_spline": True}
    if "rest_lengths" in inspect.signature(el.MuscleTorques.__init__).parameters:
        mt["rest_lengths"] = rod.rest_lengths
    sim.add_forcing_to(rod).using(el.MuscleTorques, **mt)
    fr = ground["friction"]
    friction = {"k": ground_k, "nu": ground_nu, "slip_velocity_tol": fr["threshold_velocity"],
                "static_mu_array": np.array(fr["static"]), "kinetic_mu_array": np.array(fr["kinetic"])}
    origin, normal = np.array(ground["point"], float), np.array([1.0, 0.0, 0.0])
    if hasattr(el, "AnisotropicFrictionalPlane"):  # up to 0.3: a forcing
        sim.add_forcing_to(rod).using(el.AnisotropicFrictionalPlane, plane_origin=origin, plane_normal=normal, **friction)
    else:  # 0.4 and later: a Plane in the system and a contact between it and the rod
        plane = el.Plane(plane_origin=origin, plane_normal=normal)
        sim.append(plane)
        sim.detect_contact_between(rod, plane).using(el.RodPlaneContactWithAnisotropicFriction, **friction)
    dampen(el, sim, rod, damping, dt, uniform=False)
    every = max(1, int(round(0.01 / dt)))
    Record, rows, _ = recorder(el, every, lambda s: s.compute_position_center_of_mass().copy())
    sim.collect_diagnostics(rod).using(Record)
    sim.finalize()
    cpu = integrate(el, sim, until, dt)
    a, b = centres([t for t, _ in rows], [[c] for _, c in rows], until - 2, until)
    speed = ((b[1] - a[1]) ** 2 + (b[2] - a[2]) ** 2) ** 0.5 / 2.0
    return cpu / until, speed


def cantilever_rod(el, spec_path):
    spec = json.load(open(spec_path))
    rs = spec["rod"]
    E, nu = rs["youngs_modulus"], rs["poisson_ratio"]
    return straight_rod(el, 50, [0, 0, 1], [1, 0, 0], rs["length"], rs["radius"], rs["density"],
                        E, E / (2 * (1 + nu))), spec


def clamp_base(el, sim, rod):
    sim.constrain(rod).using(el.OneEndFixedBC, constrained_position_idx=(0,), constrained_director_idx=(0,))


def pyelastica_cantilever(el, dt):
    import numpy as np
    rod, spec = cantilever_rod(el, CANTILEVER_SPEC)
    sim = simulator(el)
    sim.append(rod)
    clamp_base(el, sim, rod)
    force = np.array(spec["loads"][0]["force"], float)
    holding = {"on": True}

    class HeldThenLetGo(el.NoForces):
        """The tip force and a viscous damping of velocities and spins (about critical for the
        first mode, 2 omega_1 = 44 1/s) until let go."""
        def apply_forces(self, system, time=0.0):
            if holding["on"]:
                system.external_forces[:, -1] += force
                system.external_forces[...] -= 40.0 * system.mass * system.velocity_collection

        def apply_torques(self, system, time=0.0):
            if holding["on"]:
                spin_inertia = np.diagonal(system.mass_second_moment_of_inertia).T
                system.external_torques[...] -= 40.0 * spin_inertia * system.omega_collection
    sim.add_forcing_to(rod).using(HeldThenLetGo)
    Record, rows, armed = recorder(el, max(1, int(round(1e-4 / dt))), lambda s: float(s.position_collection[0, -1]))
    armed["on"] = False
    sim.collect_diagnostics(rod).using(Record)
    sim.finalize()
    integrate(el, sim, 1.0, dt)  # to rest under the force: not timed
    holding["on"], armed["on"] = False, True
    until = 8 * EB_PERIOD
    cpu = integrate(el, sim, until, dt)
    return cpu / until, mean_crossing_period(rows)


def mean_crossing_period(rows):
    """The mean spacing of upward crossings of the signal's mean, linearly interpolated."""
    mean = sum(x for _, x in rows) / len(rows)
    ups = [t0 + (t1 - t0) * (mean - x0) / (x1 - x0)
           for (t0, x0), (t1, x1) in zip(rows, rows[1:]) if x0 < mean <= x1]
    return (ups[-1] - ups[0]) / (len(ups) - 1) if len(ups) > 1 else float("nan")


def pyelastica_elastica(el, dt, until, damping):
    import numpy as np
    rod, spec = cantilever_rod(el, ELASTICA_SPEC)
    sim = simulator(el)
    sim.append(rod)
    clamp_base(el, sim, rod)
    force = np.array(spec["loads"][0]["force"], float)
    sim.add_forcing_to(rod).using(el.EndpointForces, start_force=np.zeros(3), end_force=force, ramp_up_time=0.5)
    dampen(el, sim, rod, damping, dt, uniform=True)
    sim.finalize()
    cpu = integrate(el, sim, until, dt)
    return cpu, rod.position_collection[:, -1].copy()


def spec_expression(text):
    """A spec's muParser expression of t ("t < 1 ? 3*t^2-2*t^3 : 1", min, max) as a Python
    function, so that PyElastica follows the spec's ramps as rodd reads them."""
    m = re.fullmatch(r"(.*?)\?(.*?):(.*)", text)
    body = f"(({m.group(2)}) if ({m.group(1)}) else ({m.group(3)}))" if m else text
    code = compile(body.replace("^", "**"), text, "eval")
    return lambda t: float(eval(code, {"__builtins__": {}, "min": min, "max": max, "t": t}))


def pyelastica_twisted(el, spec_path, n, until, dt, damping, frame_every, contact_k=None):
    """The plectoneme or the solenoid from its spec: the rod clamped at the base, its tip turned
    about z by the constraint's angle (directors and spins imposed) with its x and y held, free
    along z; the spec's loads; self-contact at rodd's k_sc and damping per m^2 times the
    element length squared (PyElastica's k and nu are per element pair; contact_k, N/m per m^2,
    in place of the spec's stiffness). Returns (CPU s, frame times, node positions per frame,
    the last state's twist in turns from PyElastica's compute_twist, NaN where it has none)."""
    import numpy as np
    spec = json.load(open(spec_path))
    rs, sc = spec["rod"], spec["environment"]["self_contact"]
    rod = straight_rod(el, n, [0, 0, 1], [1, 0, 0], rs["length"], rs["radius"], rs["density"],
                       rs["youngs_modulus"], rs["shear_modulus"])
    sim = simulator(el)
    sim.append(rod)
    angle = spec_expression(spec["constraints"][0]["rotation"]["angle"])

    def angle_rate(t, h=1e-6):
        return (angle(t + h) - angle(max(t - h, 0.0))) / (t + h - max(t - h, 0.0))

    def tip_directors(t):
        c, s = np.cos(angle(t)), np.sin(angle(t))
        # a lab rotation R turns the directors' rows d_i into R d_i: Q R^T
        return tip0 @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]).T

    base_x, base_q, tip0 = rod.position_collection[:, 0].copy(), rod.director_collection[..., 0].copy(), \
        rod.director_collection[..., -1].copy()

    class TurnedTip(el.ConstraintBase):
        """The base clamped; the tip's directors turned about z, its x and y held at 0."""
        def constrain_values(self, system, time):
            system.position_collection[:, 0] = base_x
            system.director_collection[..., 0] = base_q
            system.position_collection[:2, -1] = 0.0
            system.director_collection[..., -1] = tip_directors(time)

        def constrain_rates(self, system, time):
            system.velocity_collection[:, 0] = 0.0
            system.omega_collection[:, 0] = 0.0
            system.velocity_collection[:2, -1] = 0.0
            # PyElastica's spins are in the material frame
            system.omega_collection[:, -1] = tip_directors(time) @ np.array([0.0, 0.0, angle_rate(time)])
    sim.constrain(rod).using(TurnedTip)

    loads = []
    for load in spec["loads"]:
        node = n if load["type"] == "tip_force" else int(round(load["s"] / rs["length"] * n))
        loads.append((node, np.array(load["force"], float), spec_expression(load.get("scale", "1"))))

    class SpecLoads(el.NoForces):
        def apply_forces(self, system, time=0.0):
            for node, force, scale in loads:
                system.external_forces[:, node] += scale(time) * force
    sim.add_forcing_to(rod).using(SpecLoads)
    dx2 = (rs["length"] / n) ** 2
    k_sc = contact_k if contact_k is not None else sc["stiffness"]
    sim.detect_contact_between(rod, rod).using(el.RodSelfContact, k=k_sc * dx2, nu=sc["damping"] * dx2)
    dampen(el, sim, rod, damping, dt, uniform=False)
    Record, rows, _ = recorder(el, max(1, int(round(frame_every / dt))), lambda s: s.position_collection.T.copy())
    sim.collect_diagnostics(rod).using(Record)
    sim.finalize()
    cpu = integrate(el, sim, until, dt)
    twist = float("nan")
    if hasattr(el, "compute_twist"):
        twist = float(el.compute_twist(rod.position_collection[None], rod.director_collection[None, 0])[0][0])
    return cpu, [t for t, _ in rows], [p for _, p in rows], twist


def pyproject_version(checkout):
    """A source checkout's version from its pyproject.toml (1.0 has no __version__ and reports
    "unknown" when it is not installed)."""
    try:
        m = re.search(r'^version\s*=\s*"([^"]+)"', open(os.path.join(checkout, "pyproject.toml")).read(), re.M)
        return m.group(1) if m else "?"
    except OSError:
        return "?"


# ---- both -----------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--cases", default="snake,cantilever,elastica,plectoneme,solenoid")
    ap.add_argument("--snake-until", type=float, default=4.0)
    ap.add_argument("--snake-dt", type=float, default=1e-4)
    ap.add_argument("--snake-damping", type=float, default=2.5,
                    help="PyElastica's AnalyticalLinearDamper on the snake, 1/s")
    ap.add_argument("--ground-k", type=float, default=1.0,
                    help="AnisotropicFrictionalPlane's k (its continuum snake example's value)")
    ap.add_argument("--ground-nu", type=float, default=1e-6, help="AnisotropicFrictionalPlane's nu")
    ap.add_argument("--cantilever-dt", type=float, default=1e-5)
    ap.add_argument("--elastica-dt", type=float, default=1e-4)
    ap.add_argument("--elastica-until", type=float, default=10.0)
    ap.add_argument("--elastica-damping", type=float, default=5.0)
    ap.add_argument("--twisted-n", type=int, default=50, help="PyElastica's elements on the plectoneme and solenoid")
    ap.add_argument("--twisted-damping", type=float, default=2.0,
                    help="PyElastica's AnalyticalLinearDamper on the twisted rods, 1/s (the seed's gamma = 2)")
    ap.add_argument("--plectoneme-until", type=float, default=15.0)
    ap.add_argument("--plectoneme-dt", type=float, default=2e-4)
    ap.add_argument("--solenoid-until", type=float, default=20.0)
    ap.add_argument("--solenoid-dt", type=float, default=1e-4)
    ap.add_argument("--solenoid-contact-k", type=float, default=1e8,
                    help="PyElastica's self-contact stiffness on the solenoid, N/m per m^2 (rodd's spec: 1e9)")
    args = ap.parse_args()
    checkout = os.environ.get("PYELASTICA")
    if not checkout:
        print("pyelastica: skipped (PYELASTICA is not set: a checkout of github.com/GazzolaLab/PyElastica; "
              "bash deploy/setup.sh --bench installs what runs it)")
        return 0
    # Debian's numba and numpy belong to Debian's interpreter, not to another python3 on PATH
    import importlib.util
    debian = "/usr/bin/python3"
    if (importlib.util.find_spec("numpy") is None and os.path.realpath(sys.executable) != os.path.realpath(debian)
            and os.access(debian, os.X_OK)):
        os.execv(debian, [debian] + sys.argv)
    sys.path.insert(0, os.path.abspath(checkout))
    try:
        import elastica as el
    except ImportError as e:
        sys.exit(f"pyelastica: PyElastica at {checkout} does not import ({e}); bash deploy/setup.sh --bench")
    version = getattr(el, "__version__", None) or pyproject_version(checkout)
    print(f"rodd against PyElastica {version} ({checkout}), CPU s per simulated s unless said; "
          "PyElastica's numba compilation is left out (a short or untimed run first)")
    cases = args.cases.split(",")
    if "snake" in cases:
        ground = (args.ground_k, args.ground_nu)
        pyelastica_snake(el, 0.01, args.snake_dt, args.snake_damping, *ground)  # compile
        p_cpu, p_speed = pyelastica_snake(el, args.snake_until, args.snake_dt, args.snake_damping, *ground)
        r_cpu, r_speed = rodd_snake(args.build, args.snake_until)
        print(f"  snake {args.snake_until:g} s: rodd {r_cpu:.3f} (whole process; speed {r_speed:.4f} L/T over t "
              f"{args.snake_until - 2:g}-{args.snake_until:g} s)  PyElastica {p_cpu:.3f} (dt {args.snake_dt:g}; speed {p_speed:.4f} L/T)  "
              f"rodd/PyElastica {r_cpu / p_cpu:.2f}")
    if "cantilever" in cases:
        r_cpu, r_period = rodd_cantilever(args.build)
        p_cpu, p_period = pyelastica_cantilever(el, args.cantilever_dt)
        print(f"  cantilever mode 1, 8 periods: rodd {r_cpu:.4f} (in-process; period {100 * (r_period / EB_PERIOD - 1):+.3f} %"
              f" from Euler-Bernoulli)  PyElastica {p_cpu:.4f} (dt {args.cantilever_dt:g}; "
              f"{100 * (p_period / EB_PERIOD - 1):+.3f} %)  rodd/PyElastica {r_cpu / p_cpu:.4f}")
    if "elastica" in cases:
        solve_ms, tip, tight = rodd_elastica(args.build)
        pyelastica_elastica(el, args.elastica_dt, 10 * args.elastica_dt, args.elastica_damping)  # compile
        p_cpu, p_tip = pyelastica_elastica(el, args.elastica_dt, args.elastica_until, args.elastica_damping)
        def mm(a): return 1e3 * sum((a[i] - tight[i]) ** 2 for i in range(3)) ** 0.5
        print(f"  elastica (static): rodd {solve_ms:.3f} ms CPU (in-process; tip {mm(tip):.4f} mm from the converged "
              f"solve)  PyElastica {p_cpu:.2f} s CPU ({args.elastica_until:g} s damped at dt {args.elastica_dt:g}; "
              f"tip {mm(p_tip):.4f} mm)  PyElastica/rodd {p_cpu / (solve_ms * 1e-3):.0f}")
    rod = json.load(open(PLECTONEME_SPEC))["rod"]  # the solenoid's rod is the same
    radius, length = rod["radius"], rod["length"]
    if "plectoneme" in cases:
        until, dt = args.plectoneme_until, args.plectoneme_dt
        r_cpu, times, frames, _ = rodd_frames(args.build, PLECTONEME_SPEC, until, 0.05, 101, 3)
        r_gap, r_when, r_z = plectoneme_check(times, frames, radius, length)
        pyelastica_twisted(el, PLECTONEME_SPEC, args.twisted_n, 10 * dt, dt, args.twisted_damping, 0.05)  # compile
        p_cpu, times, frames, _ = pyelastica_twisted(el, PLECTONEME_SPEC, args.twisted_n, until, dt,
                                                     args.twisted_damping, 0.05)
        p_gap, p_when, p_z = plectoneme_check(times, frames, radius, length)
        print(f"  plectoneme {until:g} s: rodd {r_cpu:.2f} s CPU (whole process, median of 3; closest distant "
              f"sections {r_gap:.3f} d at t {r_when:.2f} s, tip down to z {r_z:.3f} m)  PyElastica {p_cpu:.2f} s CPU "
              f"(n {args.twisted_n}, dt {dt:g}; {p_gap:.3f} d at t {p_when:.2f} s, z {p_z:.3f} m)  "
              f"rodd/PyElastica {r_cpu / p_cpu:.3f}")
    if "solenoid" in cases:
        until, dt = args.solenoid_until, args.solenoid_dt
        r_cpu, times, frames, last = rodd_frames(args.build, SOLENOID_SPEC, until, 0.25, 101, 3)
        r_gap, r_wr, r_lk, r_z, r_rad = solenoid_check(times, frames, radius, length, rodd_twist(last))
        k_sc = args.solenoid_contact_k
        pyelastica_twisted(el, SOLENOID_SPEC, args.twisted_n, 10 * dt, dt, args.twisted_damping, 0.25,
                           contact_k=k_sc)  # compile
        p_cpu, times, frames, p_tw = pyelastica_twisted(el, SOLENOID_SPEC, args.twisted_n, until, dt,
                                                        args.twisted_damping, 0.25, contact_k=k_sc)
        p_gap, p_wr, p_lk, p_z, p_rad = solenoid_check(times, frames, radius, length, p_tw)
        angle = json.load(open(SOLENOID_SPEC))["constraints"][0]["rotation"]["angle"]
        turns = spec_expression(angle)(until) / (2 * math.pi)
        print(f"  solenoid {until:g} s ({turns:.2f} turns): rodd {r_cpu:.2f} s CPU (whole process, median of 3; "
              f"closest distant sections {r_gap:.3f} d, writhe {r_wr:.2f}, Lk {r_lk:.2f}, tip z {r_z:.3f} m, "
              f"furthest {r_rad:.2f} r from the axis)  PyElastica {p_cpu:.2f} s CPU (n {args.twisted_n}, dt {dt:g}, "
              f"k_sc {k_sc:g}; {p_gap:.3f} d, writhe {p_wr:.2f}, Lk {p_lk:.2f}, z {p_z:.3f} m, {p_rad:.2f} r)  "
              f"rodd/PyElastica {r_cpu / p_cpu:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
