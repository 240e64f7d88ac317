//! Shared code of the Millstone tools.
#![deny(missing_docs)]
