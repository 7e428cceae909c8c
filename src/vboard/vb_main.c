/* Placeholder until the vboard lands; replaced by its owner. */
#include <stdio.h>
int main(void)
{
    fprintf(stderr, "espbench-vboard: not available in this build\n");
    return 2;
}
