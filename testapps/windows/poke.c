/* Puts the matrix fixture back (Name empty, Red chosen, the focus in Name)
 * between the matrix's cells: a message from outside glovebox, so a reset
 * is never counted as glovebox's input.
 *
 * Build: x86_64-w64-mingw32-gcc -municode -O1 poke.c -o poke.exe
 */
#include <windows.h>

int wmain(void) {
    HWND fixture = FindWindowW(L"GloveboxMatrix", NULL);
    if (!fixture) return 1;
    DWORD_PTR result;
    return SendMessageTimeoutW(fixture, WM_APP + 1, 0, 0, SMTO_ABORTIFHUNG, 5000, &result) ? 0 : 1;
}
