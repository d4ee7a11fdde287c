// Stand-in for shell32.dll: the view that asks for overlays.
#include "common.h"
class __declspec(dllexport) CDefView {
public:
    METHOD void _GetItemOverlay();
    METHOD void _OnDisplayChange();
    METHOD void WndProc();
};
void CDefView::_GetItemOverlay() { FIXTURE_BODY(1); }
void CDefView::_OnDisplayChange() { FIXTURE_BODY(2); }
void CDefView::WndProc() { FIXTURE_BODY(3); }
