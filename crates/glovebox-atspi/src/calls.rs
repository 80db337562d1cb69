//! The AT-SPI calls an input is carried out by, and the route each makes:
//! the neutral operation the platform layer knows, named in AT-SPI's own
//! words (`at-spi:DoAction(click)`, `at-spi:EditableText.SetTextContents`).

use glovebox_platform::{Mechanism, Route, Semantic};

/// One call of the application's accessibility interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AtspiCall {
    /// The element's action of this name (`click`, `toggle`, `menu.popup`).
    Action(String),
    /// An option's own activation, whatever its action is called.
    OptionAction,
    /// The whole text replaced (`EditableText.SetTextContents`).
    SetText,
    /// Text inserted at the caret (`EditableText.InsertText`).
    InsertText,
    /// A number set (`Value.CurrentValue`).
    SetValue,
    /// A child chosen through the container's selection.
    SelectChild,
    /// A child chosen through its parent's selection.
    SelectChildOfParent,
    /// The element's own focus taken, then its parent's selection.
    GrabFocusThenSelect,
}

impl AtspiCall {
    /// The route this call makes.
    pub(crate) fn route(self) -> Route {
        let method = match &self {
            AtspiCall::Action(name) => format!("DoAction({name})"),
            AtspiCall::OptionAction => "DoAction(option)".into(),
            AtspiCall::SetText => "EditableText.SetTextContents".into(),
            AtspiCall::InsertText => "EditableText.InsertText".into(),
            AtspiCall::SetValue => "Value.CurrentValue".into(),
            AtspiCall::SelectChild => "Selection.SelectChild".into(),
            AtspiCall::SelectChildOfParent => "Selection.SelectChild(parent)".into(),
            AtspiCall::GrabFocusThenSelect => "Component.GrabFocus+Selection.SelectChild".into(),
        };
        let semantic = match self {
            AtspiCall::Action(name) => Semantic::Invoke(name),
            AtspiCall::OptionAction => Semantic::Invoke("option".into()),
            AtspiCall::SetText => Semantic::SetText,
            AtspiCall::InsertText => Semantic::InsertText,
            AtspiCall::SetValue => Semantic::SetValue,
            AtspiCall::SelectChild
            | AtspiCall::SelectChildOfParent
            | AtspiCall::GrabFocusThenSelect => Semantic::Select,
        };
        Route::Semantic(semantic, Mechanism::described(format!("at-spi:{method}")))
    }
}

/// The route of a call sent whose reply has not come yet; `method` names it (`DoAction`).
pub(crate) fn unanswered(method: &'static str) -> Route {
    Route::Unanswered(Mechanism::described(format!("at-spi:{method}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_call_reads_in_atspis_words_over_its_neutral_operation() {
        let click = AtspiCall::Action("click".into()).route();
        assert_eq!(click.to_string(), "at-spi:DoAction(click)");
        assert!(matches!(click, Route::Semantic(Semantic::Invoke(ref n), _) if n == "click"));
        assert_eq!(
            AtspiCall::GrabFocusThenSelect.route().to_string(),
            "at-spi:Component.GrabFocus+Selection.SelectChild"
        );
        assert!(matches!(
            AtspiCall::SelectChildOfParent.route(),
            Route::Semantic(Semantic::Select, _)
        ));
        assert_eq!(unanswered("DoAction").to_string(), "at-spi:DoAction (sent; no reply yet)");
    }
}
