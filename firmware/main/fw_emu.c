/* Emulator-only settings of the open_eth image (ESPBENCH_NET=openeth), which
 * runs only in Espressif's QEMU for the ESP32-C3 (docs/firmware.md, "The
 * emulator image": what stops without them, with the evidence).
 *
 * That QEMU's interrupt matrix (hw/riscv/esp32c3_intmatrix.c and
 * target/riscv/esp_cpu.c of QEMU 8.1.3 esp-develop, lcgamboa/qemu 98f1cbda8c)
 * delivers a CPU line whose source goes high while the CPU cannot take it
 * (another interrupt latched, or MIE clear) only later, when the threshold
 * register is written or MIE is set through mstatus with the line's priority
 * at or above the threshold. ESP-IDF's interrupt exit lowers the threshold with
 * MIE clear and returns with mret (components/riscv/vectors.S), which the model
 * does not see, and an ISR runs at its line's priority + 1. So a pending
 * priority-1 line waits for a task to leave a critical section. The FreeRTOS
 * yield (the FROM_CPU_INTR0 software interrupt, priority 1) is then never
 * taken by a task that spins in vPortYield until it is: the tcpip task (23)
 * did so under UDP traffic, and every lower task starved.
 *
 * So here, on top of ESP-IDF's levels, the yield runs at priority 3 and the
 * FreeRTOS tick at 2, the other lines at 1: a pending yield is delivered when
 * the next ISR of a lower priority sets MIE (the 1 ms tick at the latest), and
 * nests there; the switch happens when the outer ISR returns, as a level-3
 * yield would on a chip. A tick is no longer held back by a priority-1 ISR, so
 * the idle task wakes every tick, and its hook lowers the threshold from a
 * critical section before it waits, which delivers a priority-1 line an ISR
 * left pending (the UART's, the Ethernet MAC's, esp_timer's). Both stay below
 * ESP-IDF's critical-section level (RVHAL_EXCM_LEVEL 4), which masks them. */
#include "esp_cpu.h"
#include "esp_freertos_hooks.h"
#include "freertos/FreeRTOS.h"
#include "sdkconfig.h"
#include "soc/interrupt_core0_reg.h"
#include "soc/interrupts.h"
#include "soc/soc.h"

#include "fw.h"

#if !CONFIG_IDF_TARGET_ESP32C3
#error "the open_eth image is built for the ESP32-C3 that Espressif's QEMU emulates"
#endif

/* The interrupt matrix's map registers: one word per source, the CPU line it drives. */
#define FW_EMU_LINE_OF(source) ((int)(REG_READ(DR_REG_INTERRUPT_CORE0_BASE + 4 * (source)) & 0x1f))

static const struct {
    int source, priority;
} s_levels[] = {
    {ETS_FROM_CPU_INTR0_SOURCE, 3},        /* the FreeRTOS yield (esp_crosscore_int) */
    {ETS_SYSTIMER_TARGET0_INTR_SOURCE, 2}, /* the FreeRTOS tick (port_systick.c) */
};

static bool redeliver_pending(void)
{
    UBaseType_t level = portSET_INTERRUPT_MASK_FROM_ISR();
    portCLEAR_INTERRUPT_MASK_FROM_ISR(level); /* the threshold write re-delivers */
    return true;
}

void fw_emu_setup(void)
{
    for (size_t i = 0; i < sizeof s_levels / sizeof s_levels[0]; i++) {
        int line = FW_EMU_LINE_OF(s_levels[i].source);
        if (line > 0)
            esp_cpu_intr_set_priority(line, s_levels[i].priority);
    }
    esp_register_freertos_idle_hook(redeliver_pending);
}
