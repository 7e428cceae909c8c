/* splitmix64's finaliser (Steele, Lea, Flood: "Fast splittable pseudorandom
 * number generators", 2014): a well-mixed 64-bit value from any 64-bit input,
 * for deterministic noise and identities (the virtual board's MACs and
 * throughput noise) that must not depend on call order. Not a secret. */
#ifndef ESPBENCH_MIX64_H
#define ESPBENCH_MIX64_H

#include <stdint.h>

uint64_t eb_mix64(uint64_t x);

#endif
