//! Approvals asked across calls (DESIGN.md §7): a surface that cannot wait
//! for the user inside one call — MCP on the 2026-07-28 protocol, where a
//! server may no longer send requests to its client — gets each question
//! back as a [`PendingQuestion`] with a single-use token, ends the call
//! asking for input, and the client retries the same call with the user's
//! answer.
//!
//! The host keeps the tickets, so no surface can approve on its own: a
//! ticket is bound to the call that asked (the surface's [`CallKey`]: the
//! client, the tool and its exact arguments) and to the exact question
//! (class, action, targets, window and frame). A retry is honoured only
//! when every token it echoes was issued to that same call, has not been
//! used and has not expired; its answers are used only for the questions
//! they were given for. Anything else refuses the whole call before any
//! check runs, and burns the tokens it presented. A call that ends without
//! asking again uses its tickets up.

use crate::approval::{Answer, ApprovalRequest};
use glovebox_model::{ErrorCode, Refusal};
use glovebox_platform::sync::LockRecovered as _;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a question waits for its answer unless configured otherwise.
pub const DEFAULT_ANSWER_WAIT: Duration = Duration::from_secs(300);

/// Who asked what: the surface's identity of one call (its client, the
/// tool, the exact arguments). The host only compares keys; a surface
/// builds them with [`CallKey::new`] from whatever identifies a call there.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallKey(u64);

impl CallKey {
    /// A key over `parts` (hashed with a per-process secret seed, so a key
    /// holds no argument text and cannot be predicted from outside).
    pub fn new(parts: &[&str]) -> CallKey {
        use std::hash::{BuildHasher as _, Hash as _, Hasher as _};
        static SEED: std::sync::OnceLock<std::collections::hash_map::RandomState> = std::sync::OnceLock::new();
        let mut hasher = SEED.get_or_init(Default::default).build_hasher();
        for part in parts {
            part.hash(&mut hasher);
        }
        CallKey(hasher.finish())
    }
}

/// A question the host could not put to the user within the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingQuestion {
    /// Single-use: the retry names it with the user's answer.
    pub token: String,
    /// The sentence every prompt channel shows ([`ApprovalRequest::question`]).
    pub question: String,
    /// How long the answer is waited for.
    pub expires_in: Duration,
}

/// The questions one round of a call asked, and the request state its
/// retry must echo: every token of the call, answered ones included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub questions: Vec<PendingQuestion>,
    pub request_state: Vec<String>,
}

/// What a retried call brings back: every token the previous round handed
/// out (its opaque request state) and the user's answers, by token.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Retry {
    pub tokens: Vec<String>,
    pub answers: Vec<(String, Answer)>,
}

/// One question waiting for (or holding) its answer.
#[derive(Debug)]
struct Ticket {
    call: CallKey,
    request: ApprovalRequest,
    issued: Instant,
    answer: Option<Answer>,
}

/// Every ticket of one host.
#[derive(Debug, Default)]
pub(crate) struct Tickets {
    open: HashMap<String, Ticket>,
}

/// The shared store, held by the host and by each deferred call.
pub(crate) type TicketStore = Arc<Mutex<Tickets>>;

fn lock(store: &TicketStore) -> MutexGuard<'_, Tickets> {
    store.lock_recovered()
}

/// One call on a surface that asks across calls. Made by
/// [`crate::Host::for_deferred_call`]; after the call, [`DeferredCall::pending`]
/// says whether it ended waiting for the user.
#[derive(Debug)]
pub struct DeferredCall {
    store: TicketStore,
    call: CallKey,
    wait: Duration,
    /// Tokens of this call that hold an answer (validated when the call began).
    answered: Vec<String>,
    /// Questions this round could not ask.
    asked: Mutex<Vec<PendingQuestion>>,
}

impl DeferredCall {
    /// Validates `retry` against the store and records its answers; a
    /// retry that does not belong to `call` refuses the whole call.
    pub(crate) fn begin(store: TicketStore, call: CallKey, wait: Duration, retry: Option<Retry>) -> Result<DeferredCall, Refusal> {
        let mut tickets = lock(&store);
        // Expired questions are kept as long again, so a late answer hears
        // that it came too late rather than that it was never asked.
        tickets.open.retain(|_, t| t.issued.elapsed() <= wait * 2);
        let retry = retry.unwrap_or_default();
        let burn = |tickets: &mut Tickets, refusal: Refusal| {
            for token in &retry.tokens {
                tickets.open.remove(token);
            }
            Err(refusal)
        };
        let not_asked = "nothing was delivered; call again without it to be asked";
        for (token, _) in &retry.answers {
            if !retry.tokens.contains(token) {
                return burn(
                    &mut tickets,
                    Refusal::invalid_argument(format!("the answers name a question ({}) the request state does not; {not_asked}", short(token))),
                );
            }
        }
        for token in &retry.tokens {
            let Some(ticket) = tickets.open.get(token) else {
                return burn(
                    &mut tickets,
                    Refusal::new(
                        ErrorCode::ApprovalRequired,
                        format!(
                            "the approval answer names a question ({}) that is not open: already used, expired after {} s, or never asked; {not_asked}",
                            short(token),
                            wait.as_secs()
                        ),
                    ),
                );
            };
            if ticket.issued.elapsed() > wait && ticket.answer.is_none() {
                return burn(
                    &mut tickets,
                    Refusal::new(
                        ErrorCode::Timeout,
                        format!("the approval question went unanswered for more than {} s and expired; {not_asked}", wait.as_secs()),
                    ),
                );
            }
            if ticket.call != call {
                return burn(
                    &mut tickets,
                    Refusal::new(
                        ErrorCode::ApprovalRequired,
                        format!("the approval answer was given for another call (another client, tool or arguments); {not_asked}"),
                    ),
                );
            }
            let answer = retry.answers.iter().find(|(t, _)| t == token).map(|(_, a)| a.clone());
            match (&ticket.answer, answer) {
                (Some(_), Some(_)) => {
                    return burn(
                        &mut tickets,
                        Refusal::new(ErrorCode::ApprovalRequired, format!("the question {} was already answered; {not_asked}", short(token))),
                    )
                }
                (None, None) => {
                    return burn(&mut tickets, Refusal::invalid_argument(format!("the retry carries no answer to the question {}; {not_asked}", short(token))))
                }
                _ => {}
            }
        }
        let mut answered = vec![];
        for token in &retry.tokens {
            let ticket = tickets.open.get_mut(token).expect("validated above");
            if let Some((_, answer)) = retry.answers.iter().find(|(t, _)| t == token) {
                ticket.answer = Some(answer.clone());
            }
            answered.push(token.clone());
        }
        drop(tickets);
        Ok(DeferredCall { store, call, wait, answered, asked: Mutex::default() })
    }

    /// The user's answer to exactly `request`, if this call brought one.
    pub(crate) fn answer_for(&self, request: &ApprovalRequest) -> Option<Answer> {
        let tickets = lock(&self.store);
        self.answered.iter().filter_map(|t| tickets.open.get(t)).find(|t| &t.request == request).and_then(|t| t.answer.clone())
    }

    /// Issues a ticket for `request`; the refusal that ends this round.
    pub(crate) fn defer(&self, request: &ApprovalRequest) -> Refusal {
        let token = match crate::access::new_token() {
            Ok(token) => token,
            Err(e) => return Refusal::backend_unavailable(format!("no token for the approval question (reading /dev/urandom: {e})")),
        };
        let question = request.question();
        lock(&self.store).open.insert(token.clone(), Ticket { call: self.call.clone(), request: request.clone(), issued: Instant::now(), answer: None });
        self.asked.lock_recovered().push(PendingQuestion { token, question: question.clone(), expires_in: self.wait });
        Refusal::new(ErrorCode::ApprovalRequired, format!("waiting for the user's answer: {question} Nothing was delivered yet."))
    }

    /// What this round asked; `None` when the call asked nothing and its
    /// tickets are used up.
    pub fn pending(&self) -> Option<Pending> {
        let questions = self.asked.lock_recovered().clone();
        if questions.is_empty() {
            return None;
        }
        let mut request_state = self.answered.clone();
        request_state.extend(questions.iter().map(|q| q.token.clone()));
        Some(Pending { questions, request_state })
    }
}

impl Drop for DeferredCall {
    /// A call that ended without asking again has used its answers.
    fn drop(&mut self) {
        if self.asked.get_mut().map(|a| a.is_empty()).unwrap_or(true) {
            let mut tickets = lock(&self.store);
            for token in &self.answered {
                tickets.open.remove(token);
            }
        }
    }
}

/// A token as a refusal may name it: enough to tell two apart, not to replay one.
fn short(token: &str) -> String {
    format!("{}…", token.chars().take(6).collect::<String>())
}
