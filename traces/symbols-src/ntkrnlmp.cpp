// Stand-in for ntoskrnl.exe (its PDB is ntkrnlmp.pdb): system calls,
// section mapping and page faults below Process32NextW.
#include "common.h"
EXPORT void KiSystemServiceCopyEnd() { FIXTURE_BODY(1); }
EXPORT void NtQuerySystemInformation() { FIXTURE_BODY(2); }
EXPORT void ExpQuerySystemInformation() { FIXTURE_BODY(3); }
EXPORT void ExpGetProcessInformation() { FIXTURE_BODY(4); }
EXPORT void NtMapViewOfSection() { FIXTURE_BODY(5); }
EXPORT void MiMapViewOfSection() { FIXTURE_BODY(6); }
EXPORT void KiPageFault() { FIXTURE_BODY(7); }
EXPORT void MmAccessFault() { FIXTURE_BODY(8); }
EXPORT void MiResolveDemandZeroFault() { FIXTURE_BODY(9); }
EXPORT void NtCreateFile() { FIXTURE_BODY(10); }
EXPORT void IopCreateFile() { FIXTURE_BODY(11); }
EXPORT void ObOpenObjectByNameEx() { FIXTURE_BODY(12); }
EXPORT void KiIdleLoop() { FIXTURE_BODY(13); }
