/* The output speed a host set on the pty, read through TCGETS2 so non-standard
 * rates (BOTHER) show their real value. Kept apart from <termios.h> users
 * because <asm/termbits.h> redefines its types. */
#include <asm/termbits.h>
#include <sys/ioctl.h>

#include "vb_pty.h"

unsigned vb_tty_ospeed(int fd)
{
    struct termios2 t;
    if (ioctl(fd, TCGETS2, &t) != 0)
        return 0;
    return t.c_ospeed;
}
