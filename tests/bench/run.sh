#!/usr/bin/env bash
# make bench: engine timings (CPU and wall medians over repeated runs) with the accuracy each
# run held beside them (the tip against a tight run of the same spec).
set -euo pipefail
build=${BUILD:-build}
export OPENBLAS_NUM_THREADS=1
for spec in api/examples/stiffness-tuning.json tests/bench/specs/bent-arm.json api/examples/octopus-reaching.json; do
  "$build/bench_statics" "$spec" "${REPEATS:-50}"
done
# the elastica F L^2 / EI = 3 at bend2 = 3, against the converged elastica (bend2 = 12)
"$build/bench_statics" tests/bench/specs/elastica.json "${REPEATS:-50}" --tight-set strains.bend2=12
# the paper reports "real time factor 0.45" for the reaching run in MATLAB (Sec. 5.2), counted the
# other way round (wall s per simulated s): 2.2 in rodd's simulated s per wall s
"$build/bench_dynamics" api/examples/octopus-reaching.json 3.5 0.01 "${DYN_REPEATS:-5}" --time-tight
"$build/bench_dynamics" api/examples/octopus-fetching.json 9 0.01 "${DYN_REPEATS:-3}"
# the cantilever's first mode over 8 Euler-Bernoulli periods (0.282552 s), frames at 200 Hz;
# with shear free the Timoshenko period is about 0.09 % longer. The shear mode makes BDF at a
# tight tolerance take minutes, so that tight run is generalized-alpha at a 16 times finer step.
"$build/bench_dynamics" tests/bench/specs/cantilever-mode1.json 2.2604 0.005 "${DYN_REPEATS:-5}" --release f --period 0.282552
"$build/bench_dynamics" tests/bench/specs/cantilever-mode1-shear.json 2.2604 0.005 "${DYN_REPEATS:-5}" --release f \
  --period 0.282552 --tight-set solver.integrator=generalized-alpha --tight-set solver.step=0.000176563
# contact: the arm curled around a pole, then pulled off it (generalized-alpha at 10 ms with the
# contact Jacobian, as the example)
"$build/bench_dynamics" api/examples/octopus-grasp.json 2 0.01 "${DYN_REPEATS:-3}"
# seed 002 on a free rod, contact with friction (the examples' integrators: BDF for the rolling
# rod, generalized-alpha at 4 ms with the contact Jacobian for the snake; the snake's tight run,
# BDF at rtol 1e-9, takes about 75 s): the rod rolling down an incline (Fig. 17a) and the snake's
# first two periods (Fig. 10)
"$build/bench_dynamics" api/examples/rod-rolling-incline.json 0.7 0.01 "${DYN_REPEATS:-3}"
"$build/bench_dynamics" api/examples/snake-lateral-undulation.json 2 0.01 "${DYN_REPEATS:-3}"
# the plectoneme (Fig. 9b, self-contact): timings only, its tight run (BDF at rtol 1e-9 with the
# Gauss points doubled) takes over 10 CPU minutes; test_self_contact.c checks its accuracy
"$build/bench_dynamics" api/examples/plectoneme.json 15 0.05 "${DYN_REPEATS:-1}" --no-tight
# the solenoid (Fig. 9c): generalized-alpha at its 2 ms step with the contact Jacobian, timings only likewise
"$build/bench_dynamics" api/examples/solenoid.json 20 0.25 "${DYN_REPEATS:-1}" --no-tight
# several rods (issue 29): eight extended arms, 40 inputs, on a free body in water; timings only
"$build/bench_dynamics" api/examples/octopus-eight-arms.json 3 0.05 "${DYN_REPEATS:-1}" --no-tight
# whole processes: what a script calling rodd in a loop pays per call, start-up included
python3 tests/bench/startup.py "$build" "${STARTUP_REPEATS:-21}"
# the same cases in PyElastica when PYELASTICA names a checkout of it (skipped otherwise)
python3 tests/bench/pyelastica.py --build "$build"
