// Stand-in for explorer.exe: the tray's message loop.
#include "common.h"
class __declspec(dllexport) CTray {
public:
    METHOD void _MessageLoop();
    METHOD void v_WndProc();
};
void CTray::_MessageLoop() { FIXTURE_BODY(1); }
void CTray::v_WndProc() { FIXTURE_BODY(2); }
EXPORT void wWinMain() { FIXTURE_BODY(3); }
