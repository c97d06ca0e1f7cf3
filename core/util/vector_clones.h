#ifndef ROD_VECTOR_CLONES_H
#define ROD_VECTOR_CLONES_H

/* VECTOR_CLONES before a hot loop's function: GCC compiles it twice, for the x86-64 baseline
 * (two doubles per SSE2 instruction) and for AVX2 (four), and the loader picks the one the
 * processor runs (an ifunc, resolved once at start-up). rodd is built for the baseline so that
 * one binary and image run on any x86-64 machine; the AVX2 copy takes the snake, the
 * plectoneme and the mass-matrix sums about a sixth less CPU. The results are the same bit for
 * bit: AVX2 brings no FMA, and without -ffast-math GCC vectorizes no sum it would reorder.
 * Static functions that a clone calls are inlined into it and compiled with it. Not on other
 * architectures or compilers (the fuzzers' clang), nor where ROD_NO_VECTOR_CLONES is defined
 * (to compare the two), nor in the sanitizer builds: the loader runs the resolvers before the
 * sanitizer's runtime is up, and the daemon built with TSan died at start-up on them (SIGSEGV);
 * both clones are the same source, which the baseline build checks. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(ROD_NO_VECTOR_CLONES) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define VECTOR_CLONES
#endif

#endif
