//! LLVM's on-disk encodings shared by the readers and the writers of LLVM profiles.
//!
//! Each module is one encoding, with its reading and its writing side together (the way the
//! `object` crate keeps one file per format for both directions): the chained hash table of
//! indexed profiles ([`chained_hash`]), the names blob of raw and indexed profiles
//! ([`names_blob`]), serialised value-profile data ([`value_prof_data`]), the profile
//! summary ([`summary`]), the indexed profile's header ([`indexed_header`]) and the magic
//! numbers ([`magic`]). It sits on top of the IR (it
//! encodes IR values) and below the front-ends and back-ends.

pub mod chained_hash;
pub mod indexed_header;
#[cfg(feature = "sample")]
pub mod llvm_hash;
pub mod magic;
pub mod names_blob;
pub mod sample_binary;
pub mod summary;
#[cfg(any(feature = "sample", feature = "bolt"))]
pub mod unordered_order;
pub mod value_prof_data;
