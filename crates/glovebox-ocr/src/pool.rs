//! The engines that read: one Tesseract per worker thread (an engine is
//! never shared between threads), as many workers as the machine has cores
//! up to [`MOST_WORKERS`], fed from one queue. A picture's bands go to the
//! queue together and are read at once, each by whichever worker is free.

use crate::boxes::Grey;
use crate::rows::Segmentation;
use crate::tesseract;
use glovebox_platform::{BackendError, BackendErrorKind};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Most engines run at once. Each holds its own copy of the model: a few
/// MB (the `read_png` example reading a terminal peaked at 52 MB resident
/// with two engines, 49 MB with one).
const MOST_WORKERS: usize = 4;

/// One picture to read, and where its TSV goes (with its place in the batch).
struct Job {
    grey: Grey,
    segmentation: Segmentation,
    place: usize,
    reply: mpsc::Sender<(usize, Result<String, String>)>,
}

/// The workers, started at the first read.
pub(crate) struct Pool {
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    /// Set once a worker tried to open its engine: its error, or the version line.
    engine: Arc<OnceLock<Result<String, String>>>,
    workers: usize,
}

impl Pool {
    pub(crate) fn new() -> Pool {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Pool {
            jobs: Mutex::new(None),
            engine: Arc::new(OnceLock::new()),
            workers: cores.clamp(1, MOST_WORKERS),
        }
    }

    /// The engine's state once a worker opened (or failed to open) it.
    pub(crate) fn engine(&self) -> Option<Result<String, String>> {
        self.engine.get().cloned()
    }

    fn sender(&self) -> mpsc::Sender<Job> {
        let mut jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        jobs.get_or_insert_with(|| {
            let (send, receive) = mpsc::channel::<Job>();
            let receive = Arc::new(Mutex::new(receive));
            for n in 0..self.workers {
                let (receive, engine) = (receive.clone(), self.engine.clone());
                std::thread::Builder::new()
                    .name(format!("glovebox-ocr-{n}"))
                    .spawn(move || worker(&receive, &engine))
                    .expect("a thread for an OCR engine");
            }
            send
        })
        .clone()
    }

    /// Tesseract's TSV of each picture, in their order, all read within `limit`.
    pub(crate) fn read_all(
        &self,
        pictures: Vec<(Grey, Segmentation)>,
        limit: Duration,
    ) -> Result<Vec<String>, BackendError> {
        let gone = || {
            let why = self.engine.get().and_then(|e| e.as_ref().err().cloned());
            BackendError::new(
                BackendErrorKind::Unavailable,
                why.unwrap_or_else(|| "the OCR workers stopped".into()),
            )
        };
        let count = pictures.len();
        let (reply, answers) = mpsc::channel();
        let sender = self.sender();
        for (place, (grey, segmentation)) in pictures.into_iter().enumerate() {
            let job = Job { grey, segmentation, place, reply: reply.clone() };
            sender.send(job).map_err(|_| gone())?;
        }
        drop(reply);
        let deadline = Instant::now() + limit;
        let mut out = vec![String::new(); count];
        for _ in 0..count {
            let left = deadline.saturating_duration_since(Instant::now());
            match answers.recv_timeout(left) {
                Ok((place, Ok(tsv))) => out[place] = tsv,
                Ok((_, Err(why))) => {
                    return Err(BackendError::new(BackendErrorKind::Unavailable, why))
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(BackendError::new(
                        BackendErrorKind::Timeout,
                        format!("reading the pixels took over {} s", limit.as_secs()),
                    ))
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(gone()),
            }
        }
        Ok(out)
    }
}

fn worker(jobs: &Mutex<mpsc::Receiver<Job>>, engine_state: &OnceLock<Result<String, String>>) {
    // Opened before the first job is taken, so every worker is ready when a picture's
    // bands arrive together.
    let opened = tesseract::Engine::open();
    let next = || jobs.lock().unwrap_or_else(|p| p.into_inner()).recv().ok();
    let mut engine = match opened {
        Ok(engine) => {
            let _ = engine_state.set(Ok("Tesseract with its English model".into()));
            engine
        }
        Err(missing) => {
            let _ = engine_state.set(Err(missing.0.clone()));
            while let Some(job) = next() {
                let _ = job.reply.send((job.place, Err(missing.0.clone())));
            }
            return;
        }
    };
    while let Some(job) = next() {
        let g = &job.grey;
        let tsv = engine.read_tsv(&g.data, g.width, g.height, job.segmentation);
        let _ = job.reply.send((job.place, Ok(tsv)));
    }
}
