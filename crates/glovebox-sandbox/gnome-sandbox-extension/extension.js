/* Only in glovebox's private GNOME desktop (glovebox sandbox --desktop
 * gnome): a person's session starts in the overview and leaves it with a
 * key press, which a headless desktop has no keyboard for; a person's
 * seat has a keyboard, without which no Wayland window is ever told it
 * has the keyboard focus (a virtual one is plugged in, and never typed
 * on); and the sandbox learns XWayland's display from the shell's own
 * environment, written to $XDG_RUNTIME_DIR/x-display once the shell is up. */
/* exported init */
const { Clutter, GLib } = imports.gi;
const Main = imports.ui.main;

class SandboxExtension {
    enable() {
        const seat = Clutter.get_default_backend().get_default_seat();
        this._keyboard = seat.create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE);
        const ready = () => {
            Main.overview.hide();
            // XWayland's display and its cookie file, one a line; written
            // whole or not at all (a temporary file renamed).
            GLib.file_set_contents(`${GLib.get_user_runtime_dir()}/x-display`,
                `${GLib.getenv('DISPLAY') || ''}\n${GLib.getenv('XAUTHORITY') || ''}\n`);
        };
        if (Main.layoutManager._startingUp)
            this._startup = Main.layoutManager.connect('startup-complete', ready);
        else
            ready();
    }

    disable() {
        if (this._startup)
            Main.layoutManager.disconnect(this._startup);
        this._startup = null;
        this._keyboard = null;
    }
}

function init() {
    return new SandboxExtension();
}
