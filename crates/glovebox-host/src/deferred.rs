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
//! when every token it echoes was issued to that same call, is still open
//! and has not expired; its answers are used only for the questions they
//! were given for. A token never issued, issued to another call, expired,
//! or an answer outside the request state refuses the whole call before
//! any check runs, and burns the tokens it presented.
//!
//! A token is spent when its call STARTS, not when it ends: `DeferredCall::begin`
//! takes every token of an honoured retry out of the open set under the
//! store's lock, and remembers it as spent by that call (for as long as a
//! ticket is kept). The same request state sent again — concurrently with
//! the retry it copies, or after it — is then a call that brings no answer:
//! it is asked again, with new questions, and nothing is delivered without a
//! new answer. So is a retry that leaves a question of its own call
//! unanswered; it uses none of its tokens. A round that asks again after
//! some answers carries those answers into the next round under fresh
//! tokens, so every token of every request state is used once.

use crate::approval::CallKey;
use crate::decide::{
    self,
    approval::{Echo, OpenTicket},
};
use crate::person::{Answer, Kept, Request, Wants};
use glovebox_model::Refusal;
use glovebox_platform::sync::LockRecovered as _;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a question waits for its answer unless configured otherwise.
pub const DEFAULT_ANSWER_WAIT: Duration = Duration::from_secs(300);

/// How many spent tokens are remembered at most; the oldest go first. A
/// forgotten one is refused as never issued, which is still safe.
const SPENT_KEPT: usize = 4096;

/// A question the host could not put to the user within the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingQuestion {
    /// Single-use: the retry names it with the user's answer.
    pub token: String,
    /// The sentence every prompt channel shows ([`Request::shown`]).
    pub question: String,
    /// A yes or no (an approval, an acknowledgement) or a text (the agent's question).
    pub wants: Wants,
    /// How long the answer is waited for.
    pub expires_in: Duration,
}

/// The questions one round of a call asked, and the request state its
/// retry must echo: every token of the call, answered ones included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The questions this round asked, each with its token.
    pub questions: Vec<PendingQuestion>,
    /// The tokens the retry must echo, those of answers carried over included.
    pub request_state: Vec<String>,
}

/// What a retried call brings back: every token the previous round handed
/// out (its opaque request state) and the user's answers, by token.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Retry {
    /// The previous round's request state, as it was handed out.
    pub tokens: Vec<String>,
    /// The user's answer to each question, by its token.
    pub answers: Vec<(String, Answer)>,
}

/// One question waiting for (or holding) its answer.
#[derive(Debug)]
struct Ticket {
    call: CallKey,
    request: Kept,
    issued: Instant,
    answer: Option<Answer>,
}

/// A token an honoured retry used, and the call that used it: that call
/// sending it again is asked again; any other is refused.
#[derive(Debug)]
struct Spent {
    call: CallKey,
    at: Instant,
}

/// Every ticket of one host.
#[derive(Debug, Default)]
pub(crate) struct Tickets {
    open: HashMap<String, Ticket>,
    spent: HashMap<String, Spent>,
}

impl Tickets {
    /// Forgets what outlived its use. Expired questions are kept as long
    /// again, so a late answer hears that it came too late rather than that
    /// it was never asked; spent tokens as long as their questions were.
    fn expire(&mut self, wait: Duration) {
        self.open.retain(|_, t| t.issued.elapsed() <= wait * 2);
        self.spent.retain(|_, s| s.at.elapsed() <= wait * 2);
        while self.spent.len() > SPENT_KEPT {
            let Some(oldest) = self.spent.iter().min_by_key(|(_, s)| s.at).map(|(t, _)| t.clone())
            else {
                break;
            };
            self.spent.remove(&oldest);
        }
    }
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
    /// The answers this call brought, by the question they were given for;
    /// their tokens were spent when the call began.
    answers: Vec<(Kept, Answer)>,
    /// What this round handed out.
    round: Mutex<Round>,
}

/// The tokens one round issued: its answers carried on (once the round asks
/// again) and the questions it could not ask.
#[derive(Debug, Default)]
struct Round {
    carried: Option<Vec<String>>,
    asked: Vec<PendingQuestion>,
}

impl DeferredCall {
    /// Validates `retry` against the store, spends its tokens and keeps its
    /// answers; a retry that does not belong to `call` refuses the whole
    /// call, and one this call already used (or that leaves a question
    /// unanswered) is a call with no answers: it is asked again.
    pub(crate) fn begin(
        store: TicketStore,
        call: CallKey,
        wait: Duration,
        retry: Option<Retry>,
    ) -> Result<DeferredCall, Refusal> {
        let mut tickets = lock(&store);
        tickets.expire(wait);
        let retry = retry.unwrap_or_default();
        let burn = |tickets: &mut Tickets, refusal: Refusal| {
            for token in &retry.tokens {
                tickets.open.remove(token);
            }
            Err(refusal)
        };
        for (token, _) in &retry.answers {
            if !retry.tokens.contains(token) {
                let refusal = decide::approval::answer_not_asked(token);
                return burn(&mut tickets, decide::approval::nothing_delivered(refusal));
            }
        }
        let mut again = false;
        for token in &retry.tokens {
            let spent_by = tickets.spent.get(token).map(|spent| &spent.call);
            let open = tickets.open.get(token).map(|t| OpenTicket {
                call: &t.call,
                age: t.issued.elapsed(),
                answered: t.answer.is_some(),
            });
            match decide::approval::echo(
                spent_by,
                open,
                &call,
                wait,
                token,
                retry.answers.iter().any(|(t, _)| t == token),
            ) {
                Ok(Echo::Spent | Echo::Open { answered: false }) => again = true,
                Ok(Echo::Open { answered: true }) => {}
                Err(refusal) => {
                    return burn(&mut tickets, decide::approval::nothing_delivered(refusal))
                }
            }
        }
        let mut answers = vec![];
        if !again {
            // Spent now, under the lock: a copy of this state arriving while
            // this call still runs finds its tokens used.
            for token in &retry.tokens {
                let Some(ticket) = tickets.open.remove(token) else { continue };
                tickets
                    .spent
                    .insert(token.clone(), Spent { call: call.clone(), at: Instant::now() });
                let given = retry.answers.iter().find(|(t, _)| t == token).map(|(_, a)| a.clone());
                if let Some(answer) = ticket.answer.or(given) {
                    answers.push((ticket.request, answer));
                }
            }
            tickets.expire(wait);
        }
        drop(tickets);
        Ok(DeferredCall { store, call, wait, answers, round: Mutex::default() })
    }

    /// The person's answer to exactly `request`, if this call brought one.
    pub(crate) fn answer_for(&self, request: Request<'_>) -> Option<Answer> {
        self.answers.iter().find(|(r, _)| r.request() == request).map(|(_, a)| a.clone())
    }

    /// Issues a ticket for `request` (and, the first time a round asks,
    /// fresh tickets carrying the answers it brought); the refusal that ends
    /// this round.
    pub(crate) fn defer(&self, request: Request<'_>) -> Refusal {
        let mut round = self.round.lock_recovered();
        let carry = if round.carried.is_none() { self.answers.len() } else { 0 };
        let tokens = match (0..=carry)
            .map(|_| glovebox_services::access::new_token())
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(tokens) => tokens,
            Err(e) => return decide::approval::no_token(&e),
        };
        let question = request.shown();
        let (token, carried) = tokens.split_last().expect("one token at least");
        let issued = Instant::now();
        let mut tickets = lock(&self.store);
        if round.carried.is_none() {
            for (token, (request, answer)) in carried.iter().zip(&self.answers) {
                tickets.open.insert(
                    token.clone(),
                    Ticket {
                        call: self.call.clone(),
                        request: request.clone(),
                        issued,
                        answer: Some(answer.clone()),
                    },
                );
            }
            round.carried = Some(carried.to_vec());
        }
        tickets.open.insert(
            token.clone(),
            Ticket { call: self.call.clone(), request: request.kept(), issued, answer: None },
        );
        drop(tickets);
        round.asked.push(PendingQuestion {
            token: token.clone(),
            question,
            wants: request.wants(),
            expires_in: self.wait,
        });
        match request {
            Request::Approve(approval) | Request::Acknowledge(approval) => {
                decide::approval::waiting(approval)
            }
            Request::Ask(question) => decide::session::waiting_for_answer(question),
        }
    }

    /// What this round asked; `None` when the call asked nothing (the
    /// answers it brought were used when it began).
    pub fn pending(&self) -> Option<Pending> {
        let round = self.round.lock_recovered();
        if round.asked.is_empty() {
            return None;
        }
        let mut request_state = round.carried.clone().unwrap_or_default();
        request_state.extend(round.asked.iter().map(|q| q.token.clone()));
        Some(Pending { questions: round.asked.clone(), request_state })
    }
}
