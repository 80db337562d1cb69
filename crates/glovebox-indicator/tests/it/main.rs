//! The integration tests of glovebox-indicator, one binary, a module per suite.

mod transport;
