//! What the peers that run programs or workers share: scratch files, a
//! program run turned into a peer result (crash, hang or output), a worker
//! reply turned into one, and objects carried as base64 in shell
//! reproducers.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::findings::shell_line;
use super::isolate::{self, Reply};
use serde_json::json;

use super::{hex_bytes, ComparisonId, Ctx, Input, NotComparable, PeerResult, View};

/// A fresh file name in the context's scratch folder.
pub(super) fn scratch_file(ctx: &Ctx, ext: &str) -> PathBuf {
    ctx.scratch.join(format!(
        "objpeer-{}-{}.{ext}",
        std::process::id(),
        isolate::unique()
    ))
}

/// A program that ran to its end: whether it succeeded, its standard
/// output and its standard error.
pub(super) type Ran = (bool, String, String);

/// What a program run means for the peer: a crash, a hang, or its output
/// (`Ok((success, stdout, stderr))`).
fn outcome(run: std::io::Result<isolate::ToolRun>, limit: Duration) -> Result<Ran, PeerResult> {
    let run = match run {
        Ok(r) => r,
        Err(e) => {
            return Err(PeerResult::NotComparable(NotComparable::Failed(format!(
                "cannot run: {e}"
            ))))
        }
    };
    if run.timed_out {
        return Err(PeerResult::TimedOut(isolate::Hang {
            seconds: limit.as_secs_f64(),
            stderr: isolate::tail(&run.stderr, 20),
        }));
    }
    if let Some(c) = isolate::crash_of(&run) {
        return Err(PeerResult::Crashed(c));
    }
    let ok = run.status.is_some_and(|s| s.success());
    Ok((ok, run.stdout, run.stderr))
}

/// Runs `cmd` (no standard input) within the context's time limit: its
/// [`outcome`].
pub(super) fn run_program(ctx: &Ctx, cmd: Command) -> Result<Ran, PeerResult> {
    outcome(isolate::run_tool(cmd, b"", ctx.timeout), ctx.timeout)
}

/// A peer result for a scratch file that could not be written or read.
pub(super) fn io_failed(what: String) -> PeerResult {
    PeerResult::NotComparable(NotComparable::Failed(what))
}

/// Runs the program `command(file)` makes on `bytes`, written to a scratch
/// file that is removed afterwards: its [`outcome`].
pub(super) fn run_on_object(
    ctx: &Ctx,
    bytes: &[u8],
    command: impl FnOnce(&Path) -> Command,
) -> Result<Ran, PeerResult> {
    run_all_on_object(ctx, bytes, |f| vec![command(f)])
}

/// Runs the programs `commands(file)` makes, one after another, on `bytes`
/// written once to a scratch file that is removed afterwards: their
/// outputs joined (success only if each succeeded), or the first crash or
/// hang.
pub(super) fn run_all_on_object(
    ctx: &Ctx,
    bytes: &[u8],
    commands: impl FnOnce(&Path) -> Vec<Command>,
) -> Result<Ran, PeerResult> {
    let f = scratch_file(ctx, "hsaco");
    if let Err(e) = std::fs::write(&f, bytes) {
        return Err(io_failed(format!("cannot write {}: {e}", f.display())));
    }
    let mut all: Ran = (true, String::new(), String::new());
    let mut r = Ok(());
    for cmd in commands(&f) {
        match run_program(ctx, cmd) {
            Ok((ok, out, err)) => {
                all.0 &= ok;
                all.1.push_str(&out);
                all.2.push_str(&err);
            }
            Err(p) => {
                r = Err(p);
                break;
            }
        }
    }
    let _ = std::fs::remove_file(&f);
    r.map(|()| all)
}

/// Calls `each` for every input: `read` on the bytes of a file (a code
/// object), and not comparable (the peer `reads` only objects) for any
/// other input.
pub(super) fn each_object(
    inputs: &[Input],
    reads: &'static str,
    each: &mut dyn FnMut(usize, PeerResult),
    mut read: impl FnMut(&[u8]) -> PeerResult,
) {
    for (k, i) in inputs.iter().enumerate() {
        match i {
            Input::File { bytes, .. } => each(k, read(bytes)),
            _ => each(k, PeerResult::NotComparable(NotComparable::Reads(reads))),
        }
    }
}

/// [`each_object`] for a tool that takes part in `mutants` as well as in
/// a comparison of its own: `judge` reads objects for `mutants`, `read`
/// for any other comparison.
pub(super) fn each_object_for(
    comparison: ComparisonId,
    inputs: &[Input],
    reads: &'static str,
    each: &mut dyn FnMut(usize, PeerResult),
    judge: impl Fn(&[u8]) -> PeerResult,
    read: impl Fn(&[u8]) -> PeerResult,
) {
    each_object(inputs, reads, each, |bytes| match comparison {
        ComparisonId::Mutants => judge(bytes),
        _ => read(bytes),
    });
}

/// The view `mutants` judges: whether the tool succeeded, the end of its
/// standard error, and the complaint it printed about the object, if any.
pub(super) fn mutant_view(ok: bool, stderr: &str, complaint: Option<String>) -> PeerResult {
    PeerResult::View(View::Json {
        value: json!({
            "ok": ok,
            "stderr": isolate::tail(stderr, 4).join(" "),
            "complaint": complaint,
        }),
    })
}

/// Hex payloads for a worker: the bytes `bytes_of` picks from each input,
/// with the index of the input each payload came from; every other input
/// is given to `each` as not comparable (the worker `reads` only those).
pub(super) fn worker_payloads(
    inputs: &[Input],
    bytes_of: fn(&Input) -> Option<&[u8]>,
    reads: &'static str,
    each: &mut dyn FnMut(usize, PeerResult),
) -> (Vec<String>, Vec<usize>) {
    let mut payloads = Vec::with_capacity(inputs.len());
    let mut index = Vec::with_capacity(inputs.len());
    for (k, i) in inputs.iter().enumerate() {
        match bytes_of(i) {
            Some(bytes) => {
                payloads.push(hex_bytes::encode(bytes));
                index.push(k);
            }
            None => each(k, PeerResult::NotComparable(NotComparable::Reads(reads))),
        }
    }
    (payloads, index)
}

/// A worker's reply as a peer result; `ok` reads a successful reply.
pub(super) fn from_reply(reply: Reply, ok: impl FnOnce(String) -> PeerResult) -> PeerResult {
    match reply {
        Reply::Ok(s) => ok(s),
        Reply::NotComparable(why) => PeerResult::NotComparable(NotComparable::Worker(why)),
        Reply::Crashed(c) => PeerResult::Crashed(c),
        Reply::TimedOut(h) => PeerResult::TimedOut(h),
    }
}

/// The result of a worker reply that is not in the task's format.
pub(super) fn unreadable(reply: &str) -> PeerResult {
    PeerResult::NotComparable(NotComparable::Worker(format!(
        "unreadable worker reply {reply:?}"
    )))
}

/// Base64 (RFC 4648, with padding, 76-column lines, a final newline), for
/// objects embedded in shell reproducers (`base64 -d`): the `base64`
/// crate encodes, the lines are cut here as coreutils' `base64` cuts them.
pub(super) fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    let flat = base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut s = String::with_capacity(flat.len() + flat.len() / 76 + 1);
    for (k, line) in flat.as_bytes().chunks(76).enumerate() {
        if k > 0 {
            s.push('\n');
        }
        // Base64 is ASCII: every cut is on a character boundary.
        s.push_str(std::str::from_utf8(line).unwrap_or_default());
    }
    s.push('\n');
    s
}

/// The shell lines that write object `name` (unless the finding folder
/// already holds it) from its base64 text.
pub(super) fn write_object(name: &str, bytes: &[u8]) -> String {
    let q = shell_line(&[name.to_owned()]);
    format!(
        "[ -f {q} ] || base64 -d > {q} <<'HSACO_EOF'\n{}HSACO_EOF\n",
        base64(bytes)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), format!("{o}\n"));
        }
        let long = base64(&[0u8; 60]);
        assert_eq!(long.lines().map(str::len).collect::<Vec<_>>(), [76, 4]);
    }
}
