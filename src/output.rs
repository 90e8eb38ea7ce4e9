//! Standard output, as every command writes it.
//!
//! Rust ignores SIGPIPE, so a reader that goes away (`hsaco-conform
//! explain lib.so | head -1`) turns every later write into an EPIPE error,
//! and `print!` panics on it. Commands print through [`out!`](crate::out)
//! and [`outln!`](crate::outln), or write to their own buffer and call
//! [`write_failed`] on an error: either way the command ends with one line
//! on standard error and exit status 2, as for any other failure to do its
//! job.

use std::fmt;
use std::io::{self, Write};
use std::os::fd::AsFd;

/// Reports that standard output could not be written (one line on standard
/// error, naming `command` and the error) and returns the exit status for
/// it: 2.
pub fn write_failed(command: &str, e: &io::Error) -> u8 {
    // Standard error may be gone too; there is nobody left to tell then.
    let _ = writeln!(
        io::stderr(),
        "hsaco-conform {command}: cannot write to standard output: {e}"
    );
    2
}

/// Standard output for a long report, buffered in 64 KiB blocks, written
/// through a duplicate of its descriptor: `Stdout` is line-buffered, and
/// looking for line ends in hundreds of megabytes of text or JSON showed in
/// profiles.
pub fn buffered() -> io::BufWriter<Box<dyn Write>> {
    let stdout = io::stdout();
    let sink: Box<dyn Write> = match stdout.as_fd().try_clone_to_owned() {
        Ok(fd) => Box::new(std::fs::File::from(fd)),
        Err(_) => Box::new(stdout),
    };
    io::BufWriter::with_capacity(1 << 16, sink)
}

/// The subcommand this process runs (`smem` for `smem decode`), for the
/// line of [`write_failed`] where the caller does not know it.
fn command() -> String {
    // Every option is a subcommand's, so the first argument names it.
    std::env::args()
        .nth(1)
        .unwrap_or_else(|| "hsaco-conform".to_owned())
}

/// Writes `args` to standard output; if that fails, ends the process as
/// [`write_failed`] says. Only for the command-line program: files being
/// written are written to a temporary name and renamed, so ending here
/// leaves none half-written.
pub fn print(args: fmt::Arguments<'_>) {
    if let Err(e) = io::stdout().lock().write_fmt(args) {
        std::process::exit(i32::from(write_failed(&command(), &e)));
    }
}

/// `print!` that ends the command with one line on standard error and
/// status 2 when standard output cannot be written, instead of panicking.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::print(format_args!($($arg)*))
    };
}

/// `println!` that ends the command with one line on standard error and
/// status 2 when standard output cannot be written, instead of panicking.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::output::print(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::print(format_args!("{}\n", format_args!($($arg)*)))
    };
}
