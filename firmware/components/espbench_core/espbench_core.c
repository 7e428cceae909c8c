/* Placeholder until the console protocol core lands; replaced by its owner. */
typedef int espbench_core_placeholder;
