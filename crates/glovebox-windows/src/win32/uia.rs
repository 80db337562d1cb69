//! UI Automation on Windows: `IUIAutomationElement` as a [`UiaElement`]
//! for the walk, and the element patterns input goes through (Invoke,
//! Value, Toggle, SelectionItem, ExpandCollapse).
//!
//! Built and type-checked; not yet run on Windows. Under Wine 10
//! `ElementFromHandle` answers but no element has children or patterns,
//! so the desktop reads such windows through their controls and MSAA
//! instead (`mod.rs`), and the Wine suite never reaches this module.

use super::system;
use crate::uia::{Expansion, Patterns, Toggle, UiaElement, ValueState};
use glovebox_model::Rect;
use windows::core::{Interface, BSTR};
use windows::Win32::Foundation::HWND;
use windows::Win32::System::Com::{CoCreateInstance, CLSCTX_INPROC_SERVER, SAFEARRAY};
use windows::Win32::System::Ole::{
    SafeArrayDestroy, SafeArrayGetElement, SafeArrayGetLBound, SafeArrayGetUBound,
};
use windows::Win32::UI::Accessibility::{
    CUIAutomation, ExpandCollapseState_Collapsed, ExpandCollapseState_Expanded,
    ExpandCollapseState_PartiallyExpanded, IUIAutomation, IUIAutomationElement,
    IUIAutomationExpandCollapsePattern, IUIAutomationInvokePattern,
    IUIAutomationSelectionItemPattern, IUIAutomationTogglePattern, IUIAutomationTreeWalker,
    IUIAutomationValuePattern, ToggleState_Indeterminate, ToggleState_On,
    UIA_ExpandCollapsePatternId, UIA_InvokePatternId, UIA_RangeValuePatternId,
    UIA_SelectionItemPatternId, UIA_TogglePatternId, UIA_ValuePatternId,
};

/// The most elements one search for an element walks.
const SEARCH_LIMIT: usize = 20_000;

/// An element with the walker its children are found by.
#[derive(Clone)]
pub(crate) struct Element {
    element: IUIAutomationElement,
    walker: IUIAutomationTreeWalker,
}

/// The window's element in UI Automation's control view, where UI
/// Automation can be had.
pub(crate) fn root(hwnd: HWND) -> Option<Element> {
    system::com();
    // SAFETY: COM is initialised on this thread; the objects are owned and released on drop.
    unsafe {
        let automation: IUIAutomation =
            CoCreateInstance(&CUIAutomation, None, CLSCTX_INPROC_SERVER).ok()?;
        let walker = automation.ControlViewWalker().ok()?;
        let element = automation.ElementFromHandle(hwnd).ok()?;
        Some(Element { element, walker })
    }
}

fn runtime_id(element: &IUIAutomationElement) -> Option<Vec<i32>> {
    // SAFETY: the SAFEARRAY of i32 the call returns is read within its
    // bounds and destroyed once.
    unsafe {
        let array: *mut SAFEARRAY = element.GetRuntimeId().ok()?;
        if array.is_null() {
            return None;
        }
        let mut out = vec![];
        if let (Ok(low), Ok(high)) = (SafeArrayGetLBound(array, 1), SafeArrayGetUBound(array, 1)) {
            for index in low..=high.min(low + 64) {
                let mut value = 0i32;
                if SafeArrayGetElement(array, &index, (&mut value as *mut i32).cast()).is_ok() {
                    out.push(value);
                }
            }
        }
        let _ = SafeArrayDestroy(array);
        (!out.is_empty()).then_some(out)
    }
}

impl Element {
    fn pattern<T: Interface>(
        &self,
        id: windows::Win32::UI::Accessibility::UIA_PATTERN_ID,
    ) -> Option<T> {
        // SAFETY: a COM call on a live element.
        unsafe { self.element.GetCurrentPatternAs::<T>(id).ok() }
    }

    /// The element among this one's descendants whose runtime id is `id`.
    pub(crate) fn find(&self, id: &[i32]) -> Option<Element> {
        let mut stack = vec![self.clone()];
        let mut seen = 0;
        while let Some(next) = stack.pop() {
            if runtime_id(&next.element).as_deref() == Some(id) {
                return Some(next);
            }
            seen += 1;
            if seen > SEARCH_LIMIT {
                return None;
            }
            stack.extend(UiaElement::children(&next));
        }
        None
    }

    /// Does what a click does, by the first pattern it supports; the
    /// mechanism's name.
    pub(crate) fn click(&self) -> Option<&'static str> {
        // SAFETY: COM calls on live patterns of a live element.
        unsafe {
            if let Some(p) = self.pattern::<IUIAutomationInvokePattern>(UIA_InvokePatternId) {
                return p.Invoke().ok().map(|_| "uia:InvokePattern.Invoke");
            }
            if let Some(p) = self.pattern::<IUIAutomationTogglePattern>(UIA_TogglePatternId) {
                return p.Toggle().ok().map(|_| "uia:TogglePattern.Toggle");
            }
            if let Some(p) =
                self.pattern::<IUIAutomationSelectionItemPattern>(UIA_SelectionItemPatternId)
            {
                return p.Select().ok().map(|_| "uia:SelectionItemPattern.Select");
            }
            if let Some(p) =
                self.pattern::<IUIAutomationExpandCollapsePattern>(UIA_ExpandCollapsePatternId)
            {
                let done = if p.CurrentExpandCollapseState().ok()? == ExpandCollapseState_Collapsed
                {
                    p.Expand()
                } else {
                    p.Collapse()
                };
                return done.ok().map(|_| "uia:ExpandCollapsePattern");
            }
        }
        None
    }

    /// Replaces its value; `None` where it has no writable value.
    pub(crate) fn set_value(&self, text: &str) -> Option<&'static str> {
        let pattern = self.pattern::<IUIAutomationValuePattern>(UIA_ValuePatternId)?;
        // SAFETY: COM calls on a live pattern; the BSTR lives past the call.
        unsafe {
            if pattern.CurrentIsReadOnly().ok()?.as_bool() {
                return None;
            }
            pattern.SetValue(&BSTR::from(text)).ok().map(|_| "uia:ValuePattern.SetValue")
        }
    }

    /// Chooses its child named `option` through that child's selection.
    pub(crate) fn select(&self, option: &str) -> Option<&'static str> {
        let wanted = option.trim();
        for child in UiaElement::children(self) {
            if child.name().trim() == wanted {
                let pattern = child
                    .pattern::<IUIAutomationSelectionItemPattern>(UIA_SelectionItemPatternId)?;
                // SAFETY: a COM call on a live pattern.
                return unsafe { pattern.Select() }.ok().map(|_| "uia:SelectionItemPattern.Select");
            }
        }
        None
    }

    /// Whether it is a password field (never typed into, never read).
    pub(crate) fn password(&self) -> bool {
        self.is_password()
    }
}

fn flag(read: windows::core::Result<windows::core::BOOL>) -> bool {
    read.map(|b| b.as_bool()).unwrap_or(false)
}

impl UiaElement for Element {
    fn runtime_id(&self) -> Option<Vec<i32>> {
        runtime_id(&self.element)
    }

    fn control_type(&self) -> i32 {
        // SAFETY: a COM call on a live element.
        unsafe { self.element.CurrentControlType() }.map(|t| t.0).unwrap_or(0)
    }

    fn name(&self) -> String {
        // SAFETY: as above; the BSTR is owned.
        unsafe { self.element.CurrentName() }.map(|b| b.to_string()).unwrap_or_default()
    }

    fn help_text(&self) -> String {
        // SAFETY: as above.
        unsafe { self.element.CurrentHelpText() }.map(|b| b.to_string()).unwrap_or_default()
    }

    fn is_password(&self) -> bool {
        // SAFETY: as above.
        flag(unsafe { self.element.CurrentIsPassword() })
    }

    fn is_enabled(&self) -> bool {
        // SAFETY: as above.
        flag(unsafe { self.element.CurrentIsEnabled() })
    }

    fn is_offscreen(&self) -> bool {
        // SAFETY: as above.
        flag(unsafe { self.element.CurrentIsOffscreen() })
    }

    fn has_keyboard_focus(&self) -> bool {
        // SAFETY: as above.
        flag(unsafe { self.element.CurrentHasKeyboardFocus() })
    }

    fn is_keyboard_focusable(&self) -> bool {
        // SAFETY: as above.
        flag(unsafe { self.element.CurrentIsKeyboardFocusable() })
    }

    fn bounds(&self) -> Option<Rect> {
        // SAFETY: as above.
        let r = unsafe { self.element.CurrentBoundingRectangle() }.ok()?;
        let (w, h) = (r.right - r.left, r.bottom - r.top);
        (w > 0 && h > 0).then(|| Rect::new(r.left, r.top, w as u32, h as u32))
    }

    fn patterns(&self) -> Patterns {
        // SAFETY: COM calls on live patterns of a live element.
        unsafe {
            Patterns {
                invoke: self.pattern::<IUIAutomationInvokePattern>(UIA_InvokePatternId).is_some(),
                value: self
                    .pattern::<IUIAutomationValuePattern>(UIA_ValuePatternId)
                    .map(|p| ValueState { read_only: flag(p.CurrentIsReadOnly()) }),
                range_value: self
                    .element
                    .GetCurrentPattern(UIA_RangeValuePatternId)
                    .is_ok_and(|p| !p.as_raw().is_null()),
                toggle: self.pattern::<IUIAutomationTogglePattern>(UIA_TogglePatternId).and_then(
                    |p| {
                        let state = p.CurrentToggleState().ok()?;
                        Some(if state == ToggleState_On {
                            Toggle::On
                        } else if state == ToggleState_Indeterminate {
                            Toggle::Indeterminate
                        } else {
                            Toggle::Off
                        })
                    },
                ),
                selection_item: self
                    .pattern::<IUIAutomationSelectionItemPattern>(UIA_SelectionItemPatternId)
                    .map(|p| flag(p.CurrentIsSelected())),
                expand_collapse: self
                    .pattern::<IUIAutomationExpandCollapsePattern>(UIA_ExpandCollapsePatternId)
                    .and_then(|p| {
                        let state = p.CurrentExpandCollapseState().ok()?;
                        Some(if state == ExpandCollapseState_Collapsed {
                            Expansion::Collapsed
                        } else if state == ExpandCollapseState_Expanded {
                            Expansion::Expanded
                        } else if state == ExpandCollapseState_PartiallyExpanded {
                            Expansion::PartiallyExpanded
                        } else {
                            Expansion::LeafNode
                        })
                    }),
            }
        }
    }

    fn children(&self) -> Vec<Element> {
        let mut out = vec![];
        // SAFETY: COM calls on a live walker; each element is owned.
        unsafe {
            let mut next = self.walker.GetFirstChildElement(&self.element).ok();
            while let Some(element) = next {
                next = self.walker.GetNextSiblingElement(&element).ok();
                out.push(Element { element, walker: self.walker.clone() });
                if out.len() > 10_000 {
                    break;
                }
            }
        }
        out
    }
}
