// Stand-in for user32.dll: the message loop.
#include "common.h"
EXPORT void GetMessageW() { FIXTURE_BODY(1); }
EXPORT void DispatchMessageW() { FIXTURE_BODY(2); }
EXPORT void UserCallWinProcCheckWow() { FIXTURE_BODY(3); }
