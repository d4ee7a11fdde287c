/* Test-only stand-in for Windows' bcryptprimitives.dll under Wine 8.0, which
 * lacks ProcessPrng (Rust's std on Windows 10+ gets its random bytes there).
 * Real Windows has the DLL; this one is built only for the Wine smoke test
 * (scripts/wine-smoke.sh) and never shipped. RtlGenRandom is advapi32's
 * SystemFunction036. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
