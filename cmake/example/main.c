/* Prints the size and first word of each embedded shader (C headers written by shaderbuild). */
#include <stdio.h>
#include "fill.spv.h"
#include "blur.spv.h"

int main(void) {
    printf("fill %u 0x%02x%02x%02x%02x\n", g_fill_main_spirv_size,
           g_fill_main_spirv[3], g_fill_main_spirv[2], g_fill_main_spirv[1], g_fill_main_spirv[0]);
    printf("blur %u 0x%02x%02x%02x%02x\n", g_blur_main_spirv_size,
           g_blur_main_spirv[3], g_blur_main_spirv[2], g_blur_main_spirv[1], g_blur_main_spirv[0]);
    return 0;
}
