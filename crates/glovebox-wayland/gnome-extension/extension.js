/* glovebox's GNOME Shell extension: the window list and the pixels the
 * shell keeps from other clients, on the session bus as dev.glovebox.Shell,
 * answered only to the programs the person allowed (the `allowed` file
 * beside this one, one absolute path per line, written by
 * `glovebox setup gnome-extension`). The changes it makes are for
 * glovebox's foreground input (which the person approves per call): Focus
 * gives the keyboard focus to a window, and back to the one that had it;
 * MovePointer and PointerButton work the shell's own virtual pointer
 * (the person's pointer: glovebox puts it back where it was after). */
/* exported init */
const { Clutter, Gio, GLib, Meta, Shell } = imports.gi;
const ExtensionUtils = imports.misc.extensionUtils;

const IFACE = `<node><interface name="dev.glovebox.Shell">
  <method name="Windows"><arg type="s" direction="out"/></method>
  <method name="CaptureWindow"><arg type="t" direction="in"/><arg type="s" direction="in"/>
    <arg type="i" direction="out"/><arg type="i" direction="out"/></method>
  <method name="CaptureScreen"><arg type="s" direction="in"/></method>
  <method name="Focus"><arg type="t" direction="in"/><arg type="t" direction="out"/></method>
  <method name="MovePointer"><arg type="d" direction="in"/><arg type="d" direction="in"/>
    <arg type="d" direction="out"/><arg type="d" direction="out"/></method>
  <method name="PointerButton"><arg type="u" direction="in"/><arg type="b" direction="in"/></method>
</interface></node>`;

function rect(r) {
    return { x: r.x, y: r.y, width: r.width, height: r.height };
}

class Service {
    constructor(dir) {
        this._dir = dir;
    }

    _allowed() {
        try {
            const [, bytes] = GLib.file_get_contents(`${this._dir}/allowed`);
            return new TextDecoder().decode(bytes).split('\n').map(l => l.trim()).filter(l => l.startsWith('/'));
        } catch (e) {
            return [];
        }
    }

    /* The caller's executable, by the bus daemon's record of its pid. */
    _check(invocation) {
        const reply = Gio.DBus.session.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
            'org.freedesktop.DBus', 'GetConnectionUnixProcessID',
            new GLib.Variant('(s)', [invocation.get_sender()]), null, Gio.DBusCallFlags.NONE, 1000, null);
        const [pid] = reply.deep_unpack();
        let exe = '';
        try {
            exe = GLib.file_read_link(`/proc/${pid}/exe`);
        } catch (e) {}
        if (exe && this._allowed().includes(exe))
            return true;
        invocation.return_dbus_error('org.freedesktop.DBus.Error.AccessDenied',
            `${exe || `pid ${pid}`} is not a program allowed to use glovebox's extension (run \`glovebox setup gnome-extension\` with it)`);
        return false;
    }

    _windows() {
        const active = global.workspace_manager.get_active_workspace();
        const all = global.get_window_actors().map(a => a.meta_window).filter(w => w);
        const stacked = global.display.sort_windows_by_stacking(all).reverse();
        return stacked.map(w => ({
            id: w.get_id().toString(),
            pid: w.get_pid(),
            title: w.get_title() || '',
            class: w.get_wm_class() || '',
            instance: w.get_wm_class_instance() || '',
            app_id: w.get_gtk_application_id() || '',
            frame: rect(w.get_frame_rect()),
            // The window without the title bar Mutter draws around it
            // (an X11 window's); a window that draws its own is its frame.
            client: rect(w.decorated && w.get_client_type() === Meta.WindowClientType.X11
                ? w.frame_rect_to_client_rect(w.get_frame_rect()) : w.get_frame_rect()),
            buffer: rect(w.get_buffer_rect()),
            focused: w.has_focus(),
            minimized: w.minimized,
            shown: w.showing_on_its_workspace() && (w.is_on_all_workspaces() || w.get_workspace() === active),
            type: w.get_window_type(),
            skip_taskbar: w.is_skip_taskbar(),
            x11: w.get_client_type() === Meta.WindowClientType.X11,
        }));
    }

    WindowsAsync(params, invocation) {
        if (!this._check(invocation))
            return;
        invocation.return_value(new GLib.Variant('(s)', [JSON.stringify({
            screens: [...Array(global.display.get_n_monitors()).keys()].map(i => rect(global.display.get_monitor_geometry(i))),
            primary: global.display.get_primary_monitor(),
            windows: this._windows(),
        })]));
    }

    CaptureWindowAsync([id, path], invocation) {
        if (!this._check(invocation))
            return;
        const actor = global.get_window_actors().find(a => a.meta_window && a.meta_window.get_id().toString() === id.toString());
        if (!actor) {
            invocation.return_dbus_error('dev.glovebox.Shell.Error.Gone', `no window ${id}`);
            return;
        }
        // What the shell's own screenshot UI does for a window: its actor
        // painted alone (never what covers it), written as PNG.
        let texture;
        try {
            texture = actor.paint_to_content(null).get_texture();
        } catch (e) {
            invocation.return_dbus_error('dev.glovebox.Shell.Error.NoPixels', `window ${id} has no pixels now: ${e.message}`);
            return;
        }
        const stream = Gio.File.new_for_path(path).replace(null, false, Gio.FileCreateFlags.PRIVATE, null);
        Shell.Screenshot.composite_to_stream(texture, 0, 0, -1, -1, actor.get_resource_scale(),
            null, 0, 0, 1, stream, (o, result) => {
                try {
                    const pixbuf = Shell.Screenshot.composite_to_stream_finish(result);
                    stream.close(null);
                    invocation.return_value(new GLib.Variant('(ii)', [pixbuf.get_width(), pixbuf.get_height()]));
                } catch (e) {
                    invocation.return_dbus_error('dev.glovebox.Shell.Error.NoPixels', `${e.message}`);
                }
            });
    }

    FocusAsync([id], invocation) {
        if (!this._check(invocation))
            return;
        const window = global.get_window_actors().map(a => a.meta_window)
            .find(w => w && w.get_id().toString() === id.toString());
        if (!window) {
            invocation.return_dbus_error('dev.glovebox.Shell.Error.Gone', `no window ${id}`);
            return;
        }
        const previous = global.display.focus_window;
        window.activate(global.get_current_time());
        invocation.return_value(new GLib.Variant('(t)', [previous ? previous.get_id() : 0]));
    }

    /* Calls `then` with the shell's virtual pointer, made at its first use:
     * the seat takes a new device a moment later, and what it is sent
     * before is lost (measured: the first click). */
    _withPointer(then) {
        if (this._virtualPointer) {
            then(this._virtualPointer);
            return;
        }
        const seat = Clutter.get_default_backend().get_default_seat();
        this._virtualPointer = seat.create_virtual_device(Clutter.InputDeviceType.POINTER_DEVICE);
        GLib.timeout_add(GLib.PRIORITY_DEFAULT, 200, () => {
            then(this._virtualPointer);
            return GLib.SOURCE_REMOVE;
        });
    }

    /* The pointer to (x, y) on the stage; answers where it was. Moved just
     * before the next redraw: the stage's stacking follows a window raised
     * by Focus only then, and a pointer moved before it lands on (and a
     * press goes to) the window that was on top. */
    MovePointerAsync([x, y], invocation) {
        if (!this._check(invocation))
            return;
        const move = pointer => {
            const [wasX, wasY] = global.get_pointer();
            pointer.notify_absolute_motion(GLib.get_monotonic_time(), x, y);
            invocation.return_value(new GLib.Variant('(dd)', [wasX, wasY]));
            return GLib.SOURCE_REMOVE;
        };
        const laters = global.compositor && global.compositor.get_laters ? global.compositor.get_laters() : null;
        this._withPointer(pointer => {
            if (laters)
                laters.add(Meta.LaterType.BEFORE_REDRAW, () => move(pointer));
            else
                Meta.later_add(Meta.LaterType.BEFORE_REDRAW, () => move(pointer));
        });
    }

    /* Button 1 left, 2 middle, 3 right, 8 back, 9 forward (as on X11). */
    PointerButtonAsync([button, pressed], invocation) {
        if (!this._check(invocation))
            return;
        const state = pressed ? Clutter.ButtonState.PRESSED : Clutter.ButtonState.RELEASED;
        this._withPointer(pointer => {
            pointer.notify_button(GLib.get_monotonic_time(), button, state);
            invocation.return_value(null);
        });
    }

    CaptureScreenAsync([path], invocation) {
        if (!this._check(invocation))
            return;
        const file = Gio.File.new_for_path(path);
        const stream = file.replace(null, false, Gio.FileCreateFlags.PRIVATE, null);
        const shooter = new Shell.Screenshot();
        shooter.screenshot(false, stream, (o, result) => {
            try {
                shooter.screenshot_finish(result);
                stream.close(null);
                invocation.return_value(null);
            } catch (e) {
                invocation.return_dbus_error('dev.glovebox.Shell.Error.NoPixels', `${e}`);
            }
        });
    }
}

class Extension {
    enable() {
        const dir = ExtensionUtils.getCurrentExtension().path;
        this._service = new Service(dir);
        this._exported = Gio.DBusExportedObject.wrapJSObject(IFACE, this._service);
        this._exported.export(Gio.DBus.session, '/dev/glovebox/Shell');
        this._name = Gio.DBus.session.own_name('dev.glovebox.Shell', Gio.BusNameOwnerFlags.NONE, null, null);
    }

    disable() {
        Gio.DBus.session.unown_name(this._name);
        this._exported.unexport();
        this._exported = null;
        this._service = null;
    }
}

function init() {
    return new Extension();
}
