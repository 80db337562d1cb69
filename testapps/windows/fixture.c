/* A Win32 form for glovebox's Wine suite: a name EDIT, a password EDIT,
 * a Submit BUTTON, a Subscribe CHECKBOX and a colour LISTBOX, with two
 * painted swatches. It writes its own state to the file named by its first
 * argument after every change: the fixture, not glovebox, is the oracle.
 * The password's text is never written, only its length.
 *
 * Build: x86_64-w64-mingw32-gcc -municode -mwindows -O1 fixture.c -o fixture.exe
 */
#include <windows.h>
#include <stdio.h>

enum { ID_NAME = 101, ID_PASSWORD, ID_SUBMIT, ID_SUBSCRIBE, ID_COLOUR };

static const wchar_t *state_path;
static HWND main_window, name_edit, password_edit, subscribe_box, colour_list;
static int submitted;
static wchar_t submitted_name[256];

static void write_utf8(FILE *f, const wchar_t *text) {
    char buffer[1024];
    int n = WideCharToMultiByte(CP_UTF8, 0, text, -1, buffer, sizeof buffer, NULL, NULL);
    if (n > 0) fputs(buffer, f);
}

static void write_state(void) {
    wchar_t name[256] = L"", colour[64] = L"";
    GetWindowTextW(name_edit, name, 256);
    int selected = (int)SendMessageW(colour_list, LB_GETCURSEL, 0, 0);
    if (selected >= 0) SendMessageW(colour_list, LB_GETTEXT, selected, (LPARAM)colour);
    wchar_t temp[MAX_PATH];
    swprintf(temp, MAX_PATH, L"%ls.tmp", state_path);
    FILE *f = _wfopen(temp, L"wb");
    if (!f) return;
    fputs("name=", f); write_utf8(f, name);
    fprintf(f, "\npassword_length=%d\nsubmitted=%d\nsubmitted_name=", GetWindowTextLengthW(password_edit), submitted);
    write_utf8(f, submitted_name);
    fprintf(f, "\nsubscribed=%d\ncolour=", (int)SendMessageW(subscribe_box, BM_GETCHECK, 0, 0));
    write_utf8(f, colour);
    fprintf(f, "\nforeground=%d\n", GetForegroundWindow() == main_window);
    fclose(f);
    MoveFileExW(temp, state_path, MOVEFILE_REPLACE_EXISTING);
}

static HWND control(HWND parent, const wchar_t *cls, const wchar_t *text, DWORD style, int x, int y, int w, int h, int id) {
    return CreateWindowExW(0, cls, text, WS_CHILD | WS_VISIBLE | style, x, y, w, h, parent, (HMENU)(INT_PTR)id, GetModuleHandleW(NULL), NULL);
}

static LRESULT CALLBACK window_proc(HWND hwnd, UINT msg, WPARAM wparam, LPARAM lparam) {
    switch (msg) {
    case WM_CREATE:
        control(hwnd, L"STATIC", L"Name:", 0, 10, 14, 80, 20, -1);
        name_edit = control(hwnd, L"EDIT", L"", WS_BORDER | WS_TABSTOP | ES_AUTOHSCROLL, 100, 10, 200, 24, ID_NAME);
        control(hwnd, L"STATIC", L"Password:", 0, 10, 48, 80, 20, -1);
        password_edit = control(hwnd, L"EDIT", L"", WS_BORDER | WS_TABSTOP | ES_PASSWORD | ES_AUTOHSCROLL, 100, 44, 200, 24, ID_PASSWORD);
        subscribe_box = control(hwnd, L"BUTTON", L"Subscribe", WS_TABSTOP | BS_AUTOCHECKBOX, 100, 78, 200, 24, ID_SUBSCRIBE);
        control(hwnd, L"STATIC", L"Colour:", 0, 10, 112, 80, 20, -1);
        colour_list = control(hwnd, L"LISTBOX", L"", WS_BORDER | WS_TABSTOP | LBS_NOTIFY, 100, 110, 120, 70, ID_COLOUR);
        SendMessageW(colour_list, LB_ADDSTRING, 0, (LPARAM)L"Red");
        SendMessageW(colour_list, LB_ADDSTRING, 0, (LPARAM)L"Green");
        SendMessageW(colour_list, LB_ADDSTRING, 0, (LPARAM)L"Blue");
        control(hwnd, L"BUTTON", L"Submit", WS_TABSTOP | BS_PUSHBUTTON, 100, 190, 100, 28, ID_SUBMIT);
        return 0;
    case WM_COMMAND:
        if (LOWORD(wparam) == ID_SUBMIT && HIWORD(wparam) == BN_CLICKED) {
            submitted++;
            GetWindowTextW(name_edit, submitted_name, 256);
        }
        write_state();
        return 0;
    case WM_PAINT: {
        PAINTSTRUCT ps;
        HDC dc = BeginPaint(hwnd, &ps);
        RECT red = {320, 10, 400, 60}, blue = {320, 70, 400, 120};
        HBRUSH r = CreateSolidBrush(RGB(255, 0, 0)), b = CreateSolidBrush(RGB(0, 0, 255));
        FillRect(dc, &red, r);
        FillRect(dc, &blue, b);
        DeleteObject(r);
        DeleteObject(b);
        EndPaint(hwnd, &ps);
        return 0;
    }
    case WM_DESTROY:
        PostQuitMessage(0);
        return 0;
    }
    return DefWindowProcW(hwnd, msg, wparam, lparam);
}

int WINAPI wWinMain(HINSTANCE instance, HINSTANCE previous, PWSTR command, int show) {
    (void)previous; (void)command;
    int argc;
    wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    if (argc < 2) return 2;
    state_path = argv[1];
    WNDCLASSW cls = {0};
    cls.lpfnWndProc = window_proc;
    cls.hInstance = instance;
    cls.hCursor = LoadCursor(NULL, IDC_ARROW);
    cls.hbrBackground = (HBRUSH)(COLOR_WINDOW + 1);
    cls.lpszClassName = L"GloveboxFixture";
    RegisterClassW(&cls);
    main_window = CreateWindowExW(0, L"GloveboxFixture", L"glovebox fixture", WS_OVERLAPPEDWINDOW,
                                  1300, 260, 440, 280, NULL, NULL, instance, NULL);
    ShowWindow(main_window, show);
    write_state();
    MSG msg;
    while (GetMessageW(&msg, NULL, 0, 0) > 0) {
        TranslateMessage(&msg);
        DispatchMessageW(&msg);
    }
    return 0;
}
