//! Brute-force references (filled in by the tests that need them).
