//! Keys and the pointer of the seat on KDE Plasma: the desktop portal's
//! RemoteDesktop (xdg-desktop-portal-kde 5.27 answers `Start` for a
//! keyboard and a pointer, without a screen cast, with no dialog).
//! Global input: it types and clicks wherever the focus and the pointer
//! are, so glovebox-linux uses it only for foreground delivery, after
//! KWin gave the window the focus. Without a screen cast the portal moves
//! the pointer only relatively (absolute motion is checked against a
//! stream's size); KWin's script says where it is. Each portal call
//! answers through a `Response` signal on a request object named by a
//! token glovebox picks.

use super::{KWinBackend, KWinError, ANSWER};
use futures_util::StreamExt as _;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};

const PORTAL: &str = "org.freedesktop.portal.Desktop";
const PORTAL_PATH: &str = "/org/freedesktop/portal/desktop";
const REMOTE_DESKTOP: &str = "org.freedesktop.portal.RemoteDesktop";
/// `types`: the keyboard and the pointer.
const KEYBOARD_AND_POINTER: u32 = 1 | 2;

fn failed(call: &'static str) -> impl Fn(zbus::Error) -> KWinError {
    move |e| KWinError::Call { call, message: e.to_string() }
}

impl KWinBackend {
    /// One portal request: `method` called with a fresh handle token (put
    /// into `options`), its `Response` awaited; the results.
    async fn request<B>(
        &self,
        method: &'static str,
        body: impl FnOnce(HashMap<&'static str, Value<'static>>) -> B,
    ) -> Result<HashMap<String, OwnedValue>, KWinError>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        static TOKENS: AtomicU64 = AtomicU64::new(0);
        let token = format!("glovebox{}", TOKENS.fetch_add(1, Ordering::Relaxed));
        let sender = self.unique_name.trim_start_matches(':').replace('.', "_");
        let path = format!("{PORTAL_PATH}/request/{sender}/{token}");
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .interface("org.freedesktop.portal.Request")
            .and_then(|b| b.member("Response"))
            .and_then(|b| b.path(path.as_str()))
            .map_err(failed(method))?
            .build();
        let mut responses = zbus::MessageStream::for_match_rule(rule, &self.bus, Some(4))
            .await
            .map_err(failed(method))?;
        let mut options = HashMap::new();
        options.insert("handle_token", Value::from(token));
        self.bus
            .call_method(Some(PORTAL), PORTAL_PATH, Some(REMOTE_DESKTOP), method, &body(options))
            .await
            .map_err(failed(method))?;
        let response = responses
            .next()
            .await
            .ok_or_else(|| KWinError::Call { call: method, message: "the bus closed".into() })?
            .map_err(failed(method))?;
        let (code, results): (u32, HashMap<String, OwnedValue>) = response
            .body()
            .deserialize()
            .map_err(|e| KWinError::Call { call: method, message: e.to_string() })?;
        match code {
            0 => Ok(results),
            1 => Err(KWinError::Call {
                call: method,
                message: "the person declined remote control".into(),
            }),
            _ => Err(KWinError::Call {
                call: method,
                message: format!("the portal ended the request ({code})"),
            }),
        }
    }

    async fn start_session(&self) -> Result<OwnedObjectPath, KWinError> {
        let created = self
            .request("CreateSession", |mut options| {
                options.insert("session_handle_token", Value::from("glovebox"));
                (options,)
            })
            .await?;
        let session: String = created
            .get("session_handle")
            .and_then(|v| String::try_from(v.clone()).ok())
            .ok_or_else(|| KWinError::Call {
                call: "CreateSession",
                message: "no session handle".into(),
            })?;
        let session = OwnedObjectPath::try_from(session)
            .map_err(|e| KWinError::Call { call: "CreateSession", message: e.to_string() })?;
        let path = session.clone();
        self.request("SelectDevices", move |mut options| {
            options.insert("types", Value::from(KEYBOARD_AND_POINTER));
            (path, options)
        })
        .await?;
        let path = session.clone();
        self.request("Start", move |options| (path, "", options)).await?;
        Ok(session)
    }

    /// The portal session, made on first use.
    fn session(&self) -> Result<OwnedObjectPath, KWinError> {
        let mut remote = self.remote.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(session) = remote.as_ref() {
            return Ok(session.clone());
        }
        let session = self.runtime.block_on(async {
            tokio::time::timeout(ANSWER * 3, self.start_session())
                .await
                .map_err(|_| KWinError::Timeout("the desktop portal's RemoteDesktop"))?
        })?;
        *remote = Some(session.clone());
        Ok(session)
    }

    /// One `Notify…` call on the session, its answer awaited.
    async fn notify<B>(&self, method: &'static str, body: &B) -> Result<(), KWinError>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        let call =
            self.bus.call_method(Some(PORTAL), PORTAL_PATH, Some(REMOTE_DESKTOP), method, body);
        tokio::time::timeout(ANSWER, call)
            .await
            .map_err(|_| KWinError::Timeout(method))?
            .map_err(failed(method))?;
        Ok(())
    }

    /// Presses and releases keysyms on the seat's keyboard, in order:
    /// `(keysym, pressed)`.
    pub fn keysyms(&self, strokes: &[(u32, bool)]) -> Result<(), KWinError> {
        let session = self.session()?;
        self.runtime.block_on(async {
            for &(keysym, pressed) in strokes {
                let keysym = i32::try_from(keysym).map_err(|_| KWinError::Call {
                    call: "NotifyKeyboardKeysym",
                    message: format!("keysym {keysym:#x} out of range"),
                })?;
                let body = (&session, HashMap::<&str, Value>::new(), keysym, u32::from(pressed));
                self.notify("NotifyKeyboardKeysym", &body).await?;
            }
            Ok(())
        })
    }

    /// Moves the seat's pointer by `(dx, dy)` logical pixels.
    pub fn pointer_motion(&self, dx: f64, dy: f64) -> Result<(), KWinError> {
        let session = self.session()?;
        let body = (&session, HashMap::<&str, Value>::new(), dx, dy);
        self.runtime.block_on(self.notify("NotifyPointerMotion", &body))
    }

    /// Presses (`true`) or releases the pointer button with the Linux
    /// input code `code` (`BTN_LEFT` is 0x110).
    pub fn pointer_button(&self, code: u32, pressed: bool) -> Result<(), KWinError> {
        let session = self.session()?;
        let code = i32::try_from(code).map_err(|_| KWinError::Call {
            call: "NotifyPointerButton",
            message: format!("button code {code:#x} out of range"),
        })?;
        let body = (&session, HashMap::<&str, Value>::new(), code, u32::from(pressed));
        self.runtime.block_on(self.notify("NotifyPointerButton", &body))
    }
}
