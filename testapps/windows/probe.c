/* Says, as one line of JSON, which window is in front (its title) and where
 * the pointer is: the suite's oracle that glovebox's input left both alone.
 *
 * Build: x86_64-w64-mingw32-gcc -municode -O1 probe.c -o probe.exe
 */
#include <windows.h>
#include <stdio.h>

int wmain(void) {
    wchar_t title[256] = L"";
    char utf8[1024] = "";
    POINT at = {0, 0};
    HWND front = GetForegroundWindow();
    if (front) GetWindowTextW(front, title, 256);
    WideCharToMultiByte(CP_UTF8, 0, title, -1, utf8, sizeof utf8, NULL, NULL);
    GetCursorPos(&at);
    printf("{\"foreground\": \"%s\", \"pointer\": [%ld, %ld]}\n", utf8, at.x, at.y);
    return 0;
}
