/* The Win32 fixture of the action matrix's Windows (Wine) column: a Name
 * EDIT, a Submit BUTTON, a Colour drop-down COMBOBOX and a Pad (a window of
 * its own class) that records the pointer messages it gets. After every
 * change it writes its state, in the action matrix's state document
 * (values, clicks, pad presses, motions, drags, scrolls and the modifiers
 * each carried, focus, where each widget is), to the file named by its
 * first argument. `poke.exe` puts it back (WM_APP+1): Name empty, Red
 * chosen, the focus in Name.
 *
 * Build: x86_64-w64-mingw32-gcc -municode -mwindows -O1 matrix.c -o matrix.exe
 */
#include <windows.h>
#include <windowsx.h>
#include <stdio.h>
#include <string.h>

enum { ID_NAME = 201, ID_SUBMIT, ID_COMBO, ID_PAD };
#define WM_RESET (WM_APP + 1)
#define MAX_EVENTS 256

static const wchar_t *state_path;
static HWND main_window, name_edit, submit_button, colour_combo, pad;
static int submits, motions, scrolls_down, scrolls_up;
static struct { int button, count; } presses[MAX_EVENTS];
static int press_count;
static struct { int x0, y0, x1, y1; } drags[MAX_EVENTS];
static int drag_count;
static struct { char event[16]; char modifiers[32]; } held[MAX_EVENTS];
static int held_count;
static int left_down, down_x, down_y, moved;

/* `text` as a JSON string's contents, UTF-8. */
static void put_json_text(FILE *f, const wchar_t *text) {
    char utf8[4096];
    int n = WideCharToMultiByte(CP_UTF8, 0, text, -1, utf8, sizeof utf8, NULL, NULL);
    if (n <= 0) return;
    for (const unsigned char *p = (const unsigned char *)utf8; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
}

static void put_allocation(FILE *f, const char *name, HWND control, int last) {
    RECT r;
    GetWindowRect(control, &r);
    MapWindowPoints(HWND_DESKTOP, main_window, (POINT *)&r, 2);
    fprintf(f, "\"%s\": [%ld, %ld, %ld, %ld]%s", name, r.left, r.top, r.right - r.left, r.bottom - r.top, last ? "" : ", ");
}

static void write_state(void) {
    wchar_t name[1024] = L"", colour[64] = L"";
    GetWindowTextW(name_edit, name, 1024);
    int chosen = (int)SendMessageW(colour_combo, CB_GETCURSEL, 0, 0);
    if (chosen >= 0) SendMessageW(colour_combo, CB_GETLBTEXT, chosen, (LPARAM)colour);
    HWND focus = GetFocus();
    const char *focused = focus == name_edit ? "name" : focus == submit_button ? "submit" : focus == colour_combo ? "combo" : focus == pad ? "pad" : "";
    wchar_t temp[MAX_PATH];
    swprintf(temp, MAX_PATH, L"%ls.tmp", state_path);
    FILE *f = _wfopen(temp, L"wb");
    if (!f) return;
    fputs("{\"values\": {\"name\": \"", f);
    put_json_text(f, name);
    fputs("\", \"combo\": \"", f);
    put_json_text(f, colour);
    fprintf(f, "\"}, \"clicks\": {\"submit\": %d}, \"focus\": \"%s\", \"keys\": [], \"pad\": {\"presses\": [", submits, focused);
    for (int i = 0; i < press_count; i++) fprintf(f, "%s{\"button\": %d, \"count\": %d}", i ? ", " : "", presses[i].button, presses[i].count);
    fprintf(f, "], \"motions\": %d, \"drags\": [", motions);
    for (int i = 0; i < drag_count; i++) fprintf(f, "%s[%d, %d, %d, %d]", i ? ", " : "", drags[i].x0, drags[i].y0, drags[i].x1, drags[i].y1);
    fprintf(f, "], \"scrolls\": {\"down\": %d, \"up\": %d}, \"held\": [", scrolls_down, scrolls_up);
    for (int i = 0; i < held_count; i++) fprintf(f, "%s{\"event\": \"%s\", \"modifiers\": [%s]}", i ? ", " : "", held[i].event, held[i].modifiers);
    fputs("]}, \"allocations\": {", f);
    put_allocation(f, "name", name_edit, 0);
    put_allocation(f, "submit", submit_button, 0);
    put_allocation(f, "combo", colour_combo, 0);
    put_allocation(f, "pad", pad, 1);
    fputs("}}\n", f);
    fclose(f);
    MoveFileExW(temp, state_path, MOVEFILE_REPLACE_EXISTING);
}

/* The modifiers a pointer message carried (its MK_ bits; Alt from the keyboard's state). */
static void record_held(const char *event, WPARAM keys) {
    char list[32] = "";
    if (keys & MK_CONTROL) strcat(list, "\"ctrl\"");
    if (keys & MK_SHIFT) strcat(list, list[0] ? ", \"shift\"" : "\"shift\"");
    if (GetKeyState(VK_MENU) < 0) strcat(list, list[0] ? ", \"alt\"" : "\"alt\"");
    if (!list[0] || held_count >= MAX_EVENTS) return;
    strcpy(held[held_count].event, event);
    strcpy(held[held_count].modifiers, list);
    held_count++;
}

static void record_press(int button, int count, WPARAM keys) {
    if (press_count < MAX_EVENTS) {
        presses[press_count].button = button;
        presses[press_count].count = count;
        press_count++;
    }
    char event[16];
    snprintf(event, sizeof event, "press %d", button);
    record_held(event, keys);
}

static LRESULT CALLBACK pad_proc(HWND hwnd, UINT msg, WPARAM wparam, LPARAM lparam) {
    int x = GET_X_LPARAM(lparam), y = GET_Y_LPARAM(lparam);
    switch (msg) {
    case WM_LBUTTONDOWN: left_down = 1; moved = 0; down_x = x; down_y = y; record_press(1, 1, wparam); break;
    case WM_LBUTTONDBLCLK:
        /* The second press of a double click: one press sequence, now of
         * two clicks, as the toolkits' fixtures count it. */
        left_down = 1; moved = 0; down_x = x; down_y = y;
        if (press_count > 0 && presses[press_count - 1].button == 1 && presses[press_count - 1].count == 1) {
            presses[press_count - 1].count = 2;
            record_held("press 1", wparam);
        } else {
            record_press(1, 2, wparam);
        }
        break;
    case WM_MBUTTONDOWN: record_press(2, 1, wparam); break;
    case WM_RBUTTONDOWN: record_press(3, 1, wparam); break;
    case WM_MOUSEMOVE:
        motions++;
        if (left_down && (abs(x - down_x) > 10 || abs(y - down_y) > 10)) moved = 1;
        break;
    case WM_LBUTTONUP:
        if (left_down && moved && drag_count < MAX_EVENTS) {
            drags[drag_count].x0 = down_x; drags[drag_count].y0 = down_y;
            drags[drag_count].x1 = x; drags[drag_count].y1 = y;
            drag_count++;
            record_held("release 1", wparam);
        }
        left_down = 0;
        break;
    case WM_MOUSEWHEEL: {
        int delta = GET_WHEEL_DELTA_WPARAM(wparam);
        if (delta < 0) scrolls_down += -delta / WHEEL_DELTA; else scrolls_up += delta / WHEEL_DELTA;
        record_held("scroll", GET_KEYSTATE_WPARAM(wparam));
        break;
    }
    case WM_PAINT: {
        PAINTSTRUCT ps;
        HDC dc = BeginPaint(hwnd, &ps);
        RECT r;
        GetClientRect(hwnd, &r);
        HBRUSH fill = CreateSolidBrush(RGB(220, 230, 250));
        FillRect(dc, &r, fill);
        DeleteObject(fill);
        SetBkMode(dc, TRANSPARENT);
        DrawTextW(dc, L"Pad", -1, &r, DT_CENTER | DT_VCENTER | DT_SINGLELINE);
        EndPaint(hwnd, &ps);
        return 0;
    }
    default:
        return DefWindowProcW(hwnd, msg, wparam, lparam);
    }
    write_state();
    return 0;
}

static HWND control(HWND parent, const wchar_t *cls, const wchar_t *text, DWORD style, int x, int y, int w, int h, int id) {
    return CreateWindowExW(0, cls, text, WS_CHILD | WS_VISIBLE | style, x, y, w, h, parent, (HMENU)(INT_PTR)id, GetModuleHandleW(NULL), NULL);
}

static void reset(void) {
    SetWindowTextW(name_edit, L"");
    SendMessageW(colour_combo, CB_SETCURSEL, 0, 0);
    SetFocus(name_edit);
    write_state();
}

static LRESULT CALLBACK window_proc(HWND hwnd, UINT msg, WPARAM wparam, LPARAM lparam) {
    switch (msg) {
    case WM_CREATE:
        main_window = hwnd;
        control(hwnd, L"STATIC", L"Name:", 0, 10, 14, 70, 20, -1);
        name_edit = control(hwnd, L"EDIT", L"", WS_BORDER | WS_TABSTOP | ES_AUTOHSCROLL, 90, 10, 220, 24, ID_NAME);
        submit_button = control(hwnd, L"BUTTON", L"Submit", WS_TABSTOP | BS_PUSHBUTTON, 320, 8, 90, 28, ID_SUBMIT);
        control(hwnd, L"STATIC", L"Colour:", 0, 10, 50, 70, 20, -1);
        colour_combo = control(hwnd, L"COMBOBOX", L"", WS_TABSTOP | CBS_DROPDOWNLIST | WS_VSCROLL, 90, 46, 140, 120, ID_COMBO);
        SendMessageW(colour_combo, CB_ADDSTRING, 0, (LPARAM)L"Red");
        SendMessageW(colour_combo, CB_ADDSTRING, 0, (LPARAM)L"Green");
        SendMessageW(colour_combo, CB_ADDSTRING, 0, (LPARAM)L"Blue");
        SendMessageW(colour_combo, CB_SETCURSEL, 0, 0);
        pad = CreateWindowExW(0, L"GloveboxPad", L"Pad", WS_CHILD | WS_VISIBLE | WS_BORDER, 90, 90, 320, 120, hwnd,
                              (HMENU)(INT_PTR)ID_PAD, GetModuleHandleW(NULL), NULL);
        return 0;
    case WM_COMMAND:
        if (LOWORD(wparam) == ID_SUBMIT && HIWORD(wparam) == BN_CLICKED) submits++;
        write_state();
        return 0;
    case WM_RESET:
        reset();
        return 0;
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
    cls.hInstance = instance;
    cls.hCursor = LoadCursor(NULL, IDC_ARROW);
    cls.hbrBackground = (HBRUSH)(COLOR_WINDOW + 1);
    cls.lpfnWndProc = pad_proc;
    cls.style = CS_DBLCLKS;
    cls.lpszClassName = L"GloveboxPad";
    RegisterClassW(&cls);
    cls.lpfnWndProc = window_proc;
    cls.style = 0;
    cls.lpszClassName = L"GloveboxMatrix";
    RegisterClassW(&cls);
    HWND window = CreateWindowExW(0, L"GloveboxMatrix", L"glovebox matrix", WS_OVERLAPPEDWINDOW,
                                  1300, 300, 440, 260, NULL, NULL, instance, NULL);
    ShowWindow(window, show);
    reset();
    MSG msg;
    while (GetMessageW(&msg, NULL, 0, 0) > 0) {
        TranslateMessage(&msg);
        DispatchMessageW(&msg);
    }
    return 0;
}
