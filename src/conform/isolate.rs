//! Running peers where their crashes, assertions and hangs cannot take the
//! run down.
//!
//! Two ways:
//!
//! - [`Isolated`]: an in-process library (libLLVM, comgr) runs in a worker
//!   subprocess: the `hsaco-conform` binary re-executed as `hsaco-conform
//!   worker --task NAME --arg ARG --breadcrumb FILE`. Requests go in
//!   batches over the worker's standard input, replies come back on its
//!   standard output. Before each call into the library the worker writes
//!   the item's number into a memory-mapped breadcrumb file (no system
//!   call), so when the worker dies the parent knows which item killed it;
//!   when the breadcrumb stays on one item longer than the time limit the
//!   parent kills the worker and records a hang. Either way a new worker
//!   starts and the batch goes on after that item.
//! - [`run_tool`]: a program (`llvm-mc`) runs with its input on standard
//!   input and a time limit; [`crash_of`] tells a crash (a signal, or
//!   LLVM's crash report) from an ordinary error exit.
//!
//! # Worker protocol
//!
//! Parent to worker, one line each: `B <context>` starts a batch (the
//! context is a processor name, for example), `I <index> <payload>` is one
//! item, `E` ends the batch. Worker to parent: `R <index> <reply>` or
//! `N <index> <reason>` (not comparable) per item, in order, and `E` when
//! the batch is done. Payloads, replies and reasons hold no newline.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::peers::llvm_disasm::Breadcrumb;

/// Lines of standard error kept from a crashed or hung peer.
pub const STDERR_LINES: usize = 16;

/// How a peer crashed on an input.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Crash {
    /// `SIGSEGV (11)`, `SIGABRT (6)`, `exit status 70`.
    pub status: String,
    /// The signal number, when a signal ended the process.
    pub signal: Option<i32>,
    /// The exit status, when the process exited.
    pub exit_code: Option<i32>,
    /// The last lines of its standard error.
    pub stderr: Vec<String>,
    /// Where it crashed, when the peer printed a crash report: LLVM's
    /// fatal error message, or the top frame of its stack dump inside the
    /// LLVM library (`libLLVM.so.19.1+0x559639c`). Crashes of one version
    /// with the same site are one bug.
    #[serde(default)]
    pub site: Option<String>,
    /// What the run learned about the crash by probing the peer again
    /// (for the allowlist): [`PAST_END_TAG`] when the same peer does not
    /// crash once the input is followed by zero bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

/// The tag of a crash that needs the input to end inside an instruction
/// (a literal or second dword the bytes do not have): the peer crashes
/// on the input and not on the input followed by [`PAST_END_PAD`] zero
/// bytes.
pub const PAST_END_TAG: &str = "crash:input-ends-in-instruction";

/// Zero bytes appended to probe for [`PAST_END_TAG`]: the longest AMDGPU
/// instruction (12 bytes with a literal) starting in the input's last
/// dword fits.
pub const PAST_END_PAD: usize = 12;

/// The crash site in an LLVM crash report (see [`Crash::site`]).
pub fn crash_site(stderr: &str) -> Option<String> {
    if let Some(p) = stderr.find("LLVM ERROR: ") {
        let msg = stderr
            .get(p + "LLVM ERROR: ".len()..)?
            .lines()
            .next()?
            .trim();
        return Some(format!("LLVM ERROR: {msg}"));
    }
    // Frames: ` #4 0x00007fe77959639c (/usr/lib/.../libLLVM.so.19.1+0x559639c)`.
    // The signal handler's own frames come first, then libc's signal
    // trampoline; the crash site is the first LLVM frame after libc.
    let mut after_libc = false;
    for l in stderr.lines() {
        let t = l.trim_start();
        if !t.starts_with('#') {
            continue;
        }
        if t.contains("libc.so") {
            after_libc = true;
            continue;
        }
        if !after_libc {
            continue;
        }
        let open = t.rfind('(')?;
        let inside = t.get(open + 1..)?.trim_end_matches(')');
        let file = inside.rsplit('/').next()?;
        if file.contains("libLLVM") || file.contains("llvm") {
            return Some(file.to_owned());
        }
    }
    None
}

/// A peer that made no progress on an input within the time limit and was
/// killed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hang {
    /// The time limit, in seconds.
    pub seconds: f64,
    /// The last lines of its standard error.
    pub stderr: Vec<String>,
}

/// Name and number of a signal.
pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => "signal",
    };
    format!("{name} ({sig})")
}

/// A process's end as a [`Crash`] (whether or not it is one).
pub fn crash_from_status(status: ExitStatus, stderr: Vec<String>) -> Crash {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return Crash {
                status: signal_name(sig),
                signal: Some(sig),
                exit_code: None,
                stderr,
                site: None,
                tags: Vec::new(),
            };
        }
    }
    let code = status.code();
    Crash {
        status: code.map_or_else(|| "killed".to_owned(), |c| format!("exit status {c}")),
        signal: None,
        exit_code: code,
        stderr,
        site: None,
        tags: Vec::new(),
    }
}

/// The last `n` lines of `text`.
pub fn tail(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .get(lines.len().saturating_sub(n)..)
        .unwrap_or(&[])
        .iter()
        .map(|l| (*l).to_owned())
        .collect()
}

// ------------------------------------------------------------ worker side

/// The code a worker runs for each item.
pub trait Task {
    /// Handles one item: writes the reply into `out` (no newline), or
    /// returns why the item is not comparable.
    fn call(&mut self, context: &str, payload: &str, out: &mut String) -> Result<(), String>;
}

/// Breadcrumb value while the worker waits for work.
pub const IDLE: u64 = u64::MAX;

/// Replies a worker buffers before flushing them to the parent.
const FLUSH_EVERY: usize = 256;

/// The worker's main loop: serves batches from `input` until it closes.
pub fn serve(
    task: &mut dyn Task,
    breadcrumb: &Path,
    mut input: impl BufRead,
    output: impl Write,
) -> std::io::Result<()> {
    let mut crumb = Breadcrumb::create(breadcrumb)?;
    crumb.set(IDLE, 0);
    let mut out = std::io::BufWriter::with_capacity(1 << 16, output);
    let mut context = String::new();
    let mut reply = String::new();
    let mut line = String::new();
    let mut head = String::new();
    let mut pending = 0usize;
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        let l = line.trim_end_matches(['\n', '\r']);
        if let Some(c) = l.strip_prefix("B ") {
            context.clear();
            context.push_str(c);
        } else if let Some(rest) = l.strip_prefix("I ") {
            let (index, payload) = rest.split_once(' ').unwrap_or((rest, ""));
            let Ok(k) = index.parse::<u64>() else {
                continue;
            };
            crumb.set(k, 0);
            reply.clear();
            head.clear();
            let r = task.call(&context, payload, &mut reply);
            let body = match r {
                Ok(()) => {
                    head.push_str("R ");
                    &mut reply
                }
                Err(mut why) => {
                    head.push_str("N ");
                    std::mem::swap(&mut reply, &mut why);
                    &mut reply
                }
            };
            sanitize(body);
            push_u64(&mut head, k);
            head.push(' ');
            out.write_all(head.as_bytes())?;
            out.write_all(body.as_bytes())?;
            out.write_all(b"\n")?;
            pending += 1;
            if pending >= FLUSH_EVERY {
                out.flush()?;
                pending = 0;
            }
        } else if l == "E" {
            crumb.set(IDLE, 0);
            writeln!(out, "E")?;
            out.flush()?;
            pending = 0;
        }
    }
    crumb.finish();
    out.flush()
}

/// Appends the decimal digits of `v` (without the formatting machinery:
/// this runs once per item).
pub fn push_u64(s: &mut String, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut k = buf.len();
    loop {
        k -= 1;
        buf[k] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &b in &buf[k..] {
        s.push(char::from(b));
    }
}

fn sanitize(s: &mut String) {
    if s.bytes().any(|b| b == b'\n' || b == b'\r') {
        *s = s.replace(['\n', '\r'], " ");
    }
}

/// The `selftest` worker task, for testing the isolation itself: `echo:X`
/// replies X, `nc:WHY` is not comparable, `abort` aborts the process
/// (SIGABRT), `exit:N` exits with status N, `hang` never returns.
pub struct SelfTest;

impl Task for SelfTest {
    fn call(&mut self, _context: &str, payload: &str, out: &mut String) -> Result<(), String> {
        if let Some(t) = payload.strip_prefix("echo:") {
            out.push_str(t);
            return Ok(());
        }
        if let Some(t) = payload.strip_prefix("nc:") {
            return Err(t.to_owned());
        }
        if payload == "abort" {
            eprintln!("selftest: aborting as asked");
            std::process::abort();
        }
        if let Some(n) = payload.strip_prefix("exit:") {
            eprintln!("selftest: exiting as asked");
            std::process::exit(n.parse().unwrap_or(1));
        }
        if payload == "hang" {
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
        Err(format!("selftest: unknown payload {payload:?}"))
    }
}

// ------------------------------------------------------------ parent side

/// How to start a worker.
#[derive(Clone, Debug)]
pub struct WorkerSpec {
    /// The `hsaco-conform` executable.
    pub program: PathBuf,
    /// `--task`.
    pub task: String,
    /// `--arg`.
    pub arg: String,
    /// Extra environment (e.g. `LD_LIBRARY_PATH`).
    pub env: Vec<(String, OsString)>,
    /// Longest time one item may take.
    pub timeout: Duration,
    /// Directory for breadcrumb files.
    pub scratch: PathBuf,
}

/// What a worker made of one item.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// The task's reply.
    Ok(String),
    /// The task's reason for not comparable, or why no worker could handle
    /// the item.
    NotComparable(String),
    /// The worker crashed on the item.
    Crashed(Crash),
    /// The worker hung on the item and was killed.
    TimedOut(Hang),
}

struct Proc {
    child: Child,
    writer: Option<Sender<String>>,
    writer_thread: Option<JoinHandle<()>>,
    rx: Receiver<String>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    stderr_thread: Option<JoinHandle<()>>,
    crumb: PathBuf,
}

impl Proc {
    fn stderr_tail(&mut self) -> Vec<String> {
        // The pipe closes when the process is gone; the thread then ends.
        if let Some(t) = self.stderr_thread.take() {
            let _ = t.join();
        }
        self.stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect()
    }

    fn kill(&mut self) -> Option<ExitStatus> {
        let _ = self.child.kill();
        self.child.wait().ok()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        // Closing stdin ends a healthy worker; kill covers a stuck one.
        self.writer = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(t) = self.writer_thread.take() {
            let _ = t.join();
        }
        let _ = std::fs::remove_file(&self.crumb);
    }
}

/// A worker process that is restarted after each crash or hang.
pub struct Isolated {
    spec: WorkerSpec,
    proc: Option<Proc>,
    started: u64,
    /// Workers started so far (for tests and reports).
    pub starts: u64,
}

/// Worker deaths in a row that no item explains before the batch is given
/// up.
const MAX_UNEXPLAINED: u32 = 3;

impl Isolated {
    /// A handle; the process starts with the first batch.
    pub fn new(spec: WorkerSpec) -> Self {
        Self {
            spec,
            proc: None,
            started: 0,
            starts: 0,
        }
    }

    fn spawn(&mut self) -> Result<Proc, String> {
        self.started += 1;
        // The argument may be a path: only its safe characters name the file.
        let arg: String = self
            .spec
            .arg
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let crumb = self.spec.scratch.join(format!(
            "crumb-{}-{}-{arg}-{}",
            std::process::id(),
            self.spec.task,
            unique()
        ));
        // A stale crumb must not be read as this worker's progress.
        let _ = std::fs::remove_file(&crumb);
        let mut cmd = Command::new(&self.spec.program);
        cmd.arg("worker")
            .args(["--task", &self.spec.task])
            .args(["--arg", &self.spec.arg])
            .arg("--breadcrumb")
            .arg(&crumb)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &self.spec.env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.spec.program.display()))?;
        self.starts += 1;
        let stdin = child.stdin.take().ok_or("worker has no stdin")?;
        let stdout = child.stdout.take().ok_or("worker has no stdout")?;
        let stderr = child.stderr.take().ok_or("worker has no stderr")?;
        let (tx, rx) = mpsc::channel::<String>();
        // Replies go over in blocks of whole lines (one channel message per
        // read, not per line).
        std::thread::spawn(move || {
            let mut stdout = stdout;
            let mut carry: Vec<u8> = Vec::with_capacity(1 << 16);
            loop {
                let at = carry.len();
                carry.resize(at + (1 << 16), 0);
                let n = match stdout.read(carry.get_mut(at..).unwrap_or(&mut [])) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                carry.truncate(at + n);
                if let Some(p) = carry.iter().rposition(|&b| b == b'\n') {
                    let rest = carry.get(p + 1..).unwrap_or(&[]).to_vec();
                    carry.truncate(p + 1);
                    let block = String::from_utf8(std::mem::take(&mut carry))
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                    carry = rest;
                    carry.reserve(1 << 16);
                    if tx.send(block).is_err() {
                        break;
                    }
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail2 = Arc::clone(&tail);
        let stderr_thread = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut t = tail2.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() == STDERR_LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        // Writes go through a thread so that a worker stuck in a call (its
        // stdin pipe full) never blocks the parent, which must notice the
        // hang.
        let (wtx, wrx) = mpsc::channel::<String>();
        let writer_thread = std::thread::spawn(move || {
            let mut stdin: ChildStdin = stdin;
            for chunk in wrx {
                if stdin.write_all(chunk.as_bytes()).is_err() {
                    break;
                }
            }
        });
        Ok(Proc {
            child,
            writer: Some(wtx),
            writer_thread: Some(writer_thread),
            rx,
            stderr: tail,
            stderr_thread: Some(stderr_thread),
            crumb,
        })
    }

    /// Runs `payloads` in `context`; `each(index, reply)` is called exactly
    /// once per payload, as replies arrive.
    pub fn run(&mut self, context: &str, payloads: &[String], each: &mut dyn FnMut(usize, Reply)) {
        let n = payloads.len();
        let mut done = vec![false; n];
        let mut remaining = n;
        let mut unexplained = 0u32;
        let mut finish = |k: usize, r: Reply, done: &mut Vec<bool>, remaining: &mut usize| {
            if let Some(d) = done.get_mut(k) {
                if !*d {
                    *d = true;
                    *remaining -= 1;
                    each(k, r);
                }
            }
        };
        while remaining > 0 {
            let mut proc = match self.proc.take() {
                Some(p) => p,
                None => match self.spawn() {
                    Ok(p) => p,
                    Err(e) => {
                        for k in 0..n {
                            finish(
                                k,
                                Reply::NotComparable(e.clone()),
                                &mut done,
                                &mut remaining,
                            );
                        }
                        return;
                    }
                },
            };
            let mut batch = String::with_capacity(32 * remaining + 64);
            batch.push_str("B ");
            batch.push_str(context);
            batch.push('\n');
            for (k, p) in payloads.iter().enumerate() {
                if !done.get(k).copied().unwrap_or(true) {
                    batch.push_str("I ");
                    push_u64(&mut batch, k as u64);
                    batch.push(' ');
                    batch.push_str(p);
                    batch.push('\n');
                }
            }
            batch.push_str("E\n");
            let sent = proc.writer.as_ref().is_some_and(|w| w.send(batch).is_ok());
            // Progress watch: the breadcrumb's item and since when.
            let mut seen: Option<(u64, Instant)> = None;
            let mut last_activity = Instant::now();
            let mut ended = false;
            let mut outcome: Option<Option<ExitStatus>> = None;
            let mut hung_at: Option<u64> = None;
            while sent && !ended {
                match proc.rx.recv_timeout(Duration::from_millis(25)) {
                    Ok(block) => {
                        last_activity = Instant::now();
                        for line in block.lines() {
                            if line == "E" {
                                ended = true;
                            } else if let Some((k, r)) = parse_reply(line) {
                                finish(k, r, &mut done, &mut remaining);
                            }
                        }
                    }
                    Err(RecvTimeoutError::Timeout) => {
                        if let Ok(Some(st)) = proc.child.try_wait() {
                            // Let the reader hand over what is left.
                            while let Ok(block) = proc.rx.recv_timeout(Duration::from_millis(200)) {
                                for line in block.lines() {
                                    if let Some((k, r)) = parse_reply(line) {
                                        finish(k, r, &mut done, &mut remaining);
                                    }
                                }
                            }
                            outcome = Some(Some(st));
                            break;
                        }
                        let c = Breadcrumb::read(&proc.crumb);
                        let idx = c.map(|c| c.index);
                        match (idx, seen) {
                            (Some(i), Some((j, since))) if i == j => {
                                let busy = i != IDLE;
                                let limit = if busy {
                                    self.spec.timeout
                                } else {
                                    // Idle with items pending: starting up
                                    // (loading a library) or lost.
                                    self.spec.timeout * 2
                                };
                                if since.elapsed() >= limit && last_activity.elapsed() >= limit {
                                    hung_at = busy.then_some(i);
                                    outcome = Some(proc.kill());
                                    break;
                                }
                            }
                            (Some(i), _) => seen = Some((i, Instant::now())),
                            (None, _) => {
                                if last_activity.elapsed() >= self.spec.timeout * 2 {
                                    outcome = Some(proc.kill());
                                    break;
                                }
                            }
                        }
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        outcome = Some(proc.child.wait().ok());
                        break;
                    }
                }
            }
            if sent && ended && outcome.is_none() {
                // A clean batch: keep the worker.
                self.proc = Some(proc);
                unexplained = 0;
                if remaining > 0 {
                    // Items the worker skipped (it should not): not comparable.
                    for k in 0..n {
                        finish(
                            k,
                            Reply::NotComparable("the worker gave no reply".to_owned()),
                            &mut done,
                            &mut remaining,
                        );
                    }
                }
                continue;
            }
            let status = match outcome {
                Some(s) => s,
                None => proc.kill(),
            };
            let crumb = Breadcrumb::read(&proc.crumb);
            let stderr = proc.stderr_tail();
            drop(proc);
            if let Some(i) = hung_at {
                let k = usize::try_from(i).unwrap_or(usize::MAX);
                finish(
                    k,
                    Reply::TimedOut(Hang {
                        seconds: self.spec.timeout.as_secs_f64(),
                        stderr,
                    }),
                    &mut done,
                    &mut remaining,
                );
                unexplained = 0;
                continue;
            }
            let at = crumb
                .filter(|c| c.index != IDLE)
                .and_then(|c| usize::try_from(c.index).ok())
                .filter(|&k| done.get(k) == Some(&false));
            match (at, status) {
                (Some(k), Some(st)) => {
                    finish(
                        k,
                        Reply::Crashed(crash_from_status(st, stderr)),
                        &mut done,
                        &mut remaining,
                    );
                    unexplained = 0;
                }
                _ => {
                    unexplained += 1;
                    if unexplained >= MAX_UNEXPLAINED {
                        let why = format!(
                            "the worker ({} {}) keeps dying outside any item ({}){}",
                            self.spec.task,
                            self.spec.arg,
                            status.map_or_else(
                                || "no exit status".to_owned(),
                                |s| crash_from_status(s, Vec::new()).status
                            ),
                            if stderr.is_empty() {
                                String::new()
                            } else {
                                format!(": {}", stderr.join(" | "))
                            }
                        );
                        for k in 0..n {
                            finish(
                                k,
                                Reply::NotComparable(why.clone()),
                                &mut done,
                                &mut remaining,
                            );
                        }
                        return;
                    }
                }
            }
        }
    }
}

fn parse_reply(line: &str) -> Option<(usize, Reply)> {
    let (tag, rest) = line.split_at_checked(2)?;
    let (k, text) = rest.split_once(' ').unwrap_or((rest, ""));
    let k: usize = k.parse().ok()?;
    match tag {
        "R " => Some((k, Reply::Ok(text.to_owned()))),
        "N " => Some((k, Reply::NotComparable(text.to_owned()))),
        _ => None,
    }
}

/// A number unique within this process.
pub fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

// --------------------------------------------------------------- programs

/// A finished (or killed) program run.
#[derive(Debug)]
pub struct ToolRun {
    /// Exit status (`None` only if waiting failed).
    pub status: Option<ExitStatus>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// True when it was killed for running past the time limit.
    pub timed_out: bool,
    /// Wall time.
    pub elapsed: Duration,
}

/// Runs `cmd` with `input` on standard input, killing it after `timeout`.
pub fn run_tool(mut cmd: Command, input: &[u8], timeout: Duration) -> std::io::Result<ToolRun> {
    let t0 = Instant::now();
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(&data);
        }
        drop(stdin);
    });
    let out = child.stdout.take();
    let err = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(mut o) = out {
            let _ = o.read_to_end(&mut s);
        }
        s
    });
    let ereader = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(mut e) = err {
            let _ = e.read_to_end(&mut s);
        }
        s
    });
    let mut timed_out = false;
    let status = loop {
        match child.try_wait()? {
            Some(s) => break Some(s),
            None if t0.elapsed() >= timeout => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    };
    let _ = writer.join();
    let stdout = reader.join().unwrap_or_default();
    let stderr = ereader.join().unwrap_or_default();
    Ok(ToolRun {
        status,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        timed_out,
        elapsed: t0.elapsed(),
    })
}

/// The crash in a finished run: a signal, or LLVM's crash report (`LLVM
/// ERROR:`, `Stack dump:`) with a failing exit. `None` for a normal exit,
/// even a failing one (an assembler error), and for a time-out.
pub fn crash_of(run: &ToolRun) -> Option<Crash> {
    if run.timed_out {
        return None;
    }
    let status = run.status?;
    let mut crash = crash_from_status(status, tail(&run.stderr, STDERR_LINES));
    crash.site = crash_site(&run.stderr);
    let report = run.stderr.contains("LLVM ERROR:")
        || run.stderr.contains("Stack dump:")
        || run.stderr.contains("PLEASE submit a bug report");
    (crash.signal.is_some() || (report && !status.success())).then_some(crash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_sites_of_llvm_reports() {
        let segv = "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash backtrace.
Stack dump:
0.\tProgram arguments: llvm-mc-19 --disassemble -triple=amdgcn-amd-amdhsa -mcpu=gfx900
 #0 0x00007fe774eb73c6 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/usr/lib/llvm-19/bin/../lib/libLLVM.so.19.1+0xeb73c6)
 #1 0x00007fe774eb5070 llvm::sys::RunSignalHandlers() (/usr/lib/llvm-19/bin/../lib/libLLVM.so.19.1+0xeb5070)
 #2 0x00007fe774eb7a8b (/usr/lib/llvm-19/bin/../lib/libLLVM.so.19.1+0xeb7a8b)
 #3 0x00007fe773e5a050 (/lib/x86_64-linux-gnu/libc.so.6+0x3c050)
 #4 0x00007fe77959639c (/usr/lib/llvm-19/bin/../lib/libLLVM.so.19.1+0x559639c)
 #5 0x00007fe7772fb48a (/usr/lib/llvm-19/bin/../lib/libLLVM.so.19.1+0x32fb48a)
";
        assert_eq!(
            crash_site(segv).as_deref(),
            Some("libLLVM.so.19.1+0x559639c")
        );
        let fatal = "LLVM ERROR: Disassembly not yet supported for subtarget\nPLEASE submit\n";
        assert_eq!(
            crash_site(fatal).as_deref(),
            Some("LLVM ERROR: Disassembly not yet supported for subtarget")
        );
        assert_eq!(crash_site("plain error\n"), None);
    }

    #[test]
    fn decimal_digits() {
        let mut s = String::from("I ");
        push_u64(&mut s, 0);
        s.push(' ');
        push_u64(&mut s, 18_446_744_073_709_551_615);
        assert_eq!(s, "I 0 18446744073709551615");
    }
}
