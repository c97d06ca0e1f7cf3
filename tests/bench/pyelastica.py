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
What differs by construction: PyElastica has no Kelvin-Voigt law in the rod (0.3 and later),
so its damping is the global AnalyticalLinearDamper (--damping, 1/s); its ground is its own
plane (stiffness k, damping nu per element) where rodd's is a penalty wall.
Written against PyElastica's public API (0.3) and its continuum snake example, and run here
against PyElastica 1.0.0 (its ground is then a Plane with RodPlaneContactWithAnisotropicFriction
through the Contact module; the forcing AnisotropicFrictionalPlane of 0.3 is used where it is).
Usage: PYELASTICA=DIR tests/bench/pyelastica.py [--build build] [--cases snake,cantilever,elastica]
"""
import argparse
import inspect
import json
import os
import re
import subprocess
import sys
import time

SNAKE_SPEC = "api/examples/snake-lateral-undulation.json"
CANTILEVER_SPEC = "tests/bench/specs/cantilever-mode1.json"
ELASTICA_SPEC = "tests/bench/specs/elastica.json"
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


def rodd_snake(build, until):
    out, cpu = run_rodd([f"{build}/rodd", "run", SNAKE_SPEC, "--until", str(until), "--every", "0.01"])
    frames = [json.loads(line) for line in out.splitlines() if line.strip()]
    a, b = centres([f["t"] for f in frames], [f["position"] for f in frames], until - 2, until)
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
    ap.add_argument("--cases", default="snake,cantilever,elastica")
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
