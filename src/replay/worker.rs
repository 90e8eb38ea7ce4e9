//! The replay worker: the `hsaco-conform worker --task replay` process
//! in which the HSA runtime runs, so that a GPU fault (the runtime aborts
//! the process), a crash in the runtime or a hang ends the worker and not
//! the run (`conform::isolate` restarts it and records the case as
//! crashed or timed out).
//!
//! Requests and replies are one JSON line each ([`Request`], [`Reply`]);
//! the first request of a run is [`Request::Probe`], which opens the
//! runtime and says whether cases can run at all.

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine as _;
use hsaco_oracle::probe::Plan;
use serde::{Deserialize, Serialize};

use super::dumps::Record;
use super::hsa::Hsa;
use super::run::{Gpu, Harness, Outcome, Unavailable};
use crate::conform::isolate::Task;

/// The worker task's name (`worker --task replay --arg LIBRARY`).
pub const TASK: &str = "replay";

/// What the parent asks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "snake_case")]
pub enum Request {
    /// Open the runtime; reply [`Reply::Ready`] or [`Reply::Unavailable`].
    Probe,
    /// Run one case.
    Case {
        /// The plan.
        plan: Box<Plan>,
        /// Its code object file.
        object: PathBuf,
        /// The dispatch's time limit, in seconds.
        timeout: f64,
    },
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Reply {
    /// The runtime is open.
    Ready {
        /// Its GPU agents.
        gpus: Vec<Gpu>,
        /// The runtime's version.
        runtime: String,
    },
    /// No case can run here: one line saying why.
    Unavailable {
        /// The line (`no GPU agent: hsa_init returned ...`).
        message: String,
    },
    /// A case's record, and its output buffer (base64) when it ran.
    Case {
        /// The record (its `output` file name is the parent's to set).
        record: Box<Record>,
        /// The output buffer.
        output: Option<String>,
    },
}

/// The worker's state: the runtime, opened at the first request.
pub struct ReplayTask {
    library: Option<PathBuf>,
    harness: Option<Result<Harness<'static>, String>>,
}

impl ReplayTask {
    /// A task that loads the runtime from `library` (or finds it) when
    /// first asked.
    pub fn new(library: Option<PathBuf>) -> Self {
        Self {
            library,
            harness: None,
        }
    }

    fn harness(&mut self) -> &Result<Harness<'static>, String> {
        let library = self.library.clone();
        self.harness.get_or_insert_with(|| {
            let hsa =
                Hsa::load(library.as_deref()).map_err(|e| Unavailable::NoRuntime(e).to_string())?;
            // The library stays loaded for the life of this process (the
            // harness borrows it; it is never unloaded).
            let hsa: &'static Hsa = Box::leak(Box::new(hsa));
            Harness::open(hsa).map_err(|e| e.to_string())
        })
    }

    /// Answers one request.
    pub fn answer(&mut self, request: Request) -> Reply {
        let h = match self.harness() {
            Ok(h) => h,
            Err(message) => {
                return Reply::Unavailable {
                    message: message.clone(),
                }
            }
        };
        match request {
            Request::Probe => Reply::Ready {
                gpus: h.gpus.clone(),
                runtime: h.runtime.clone(),
            },
            Request::Case {
                plan,
                object,
                timeout,
            } => {
                let mut record = Box::new(Record {
                    case: plan.case.clone(),
                    status: Outcome::Ok,
                    text: None,
                    addresses: None,
                    signature: None,
                    output: None,
                });
                let bytes = match std::fs::read(&object) {
                    Ok(b) => b,
                    Err(e) => {
                        record.status = Outcome::Error;
                        record.text = Some(format!("cannot read {}: {e}", object.display()));
                        return Reply::Case {
                            record,
                            output: None,
                        };
                    }
                };
                let timeout = Duration::from_secs_f64(timeout.clamp(0.001, 1e6));
                match h.run_plan(&plan, &bytes, timeout) {
                    Ok(run) => {
                        record.addresses = Some(run.addresses);
                        record.signature = Some(run.signature);
                        Reply::Case {
                            record,
                            output: Some(
                                base64::engine::general_purpose::STANDARD.encode(&run.output),
                            ),
                        }
                    }
                    Err(e) => {
                        record.status = e.outcome();
                        record.text = Some(e.to_string());
                        Reply::Case {
                            record,
                            output: None,
                        }
                    }
                }
            }
        }
    }
}

impl Task for ReplayTask {
    fn call(&mut self, _context: &str, payload: &str, out: &mut String) -> Result<(), String> {
        let request: Request =
            serde_json::from_str(payload).map_err(|e| format!("not a replay request: {e}"))?;
        let reply = self.answer(request);
        let text = serde_json::to_string(&reply).map_err(|e| format!("cannot encode: {e}"))?;
        out.push_str(&text);
        Ok(())
    }
}

/// Decodes a [`Reply::Case`]'s output buffer.
pub fn decode_output(b64: &str) -> Result<Vec<u8>, String> {
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|e| format!("the worker sent a bad output buffer: {e}"))
}
