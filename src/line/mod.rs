//! LINE: webhook signature and events in, messages and the Messaging API client out; what LINE
//! knows about the channel ([`channel`]); rich menus ([`richmenu`]).

pub mod channel;
pub mod client;
pub mod flex;
pub mod message;
pub mod postback;
pub mod retry;
pub mod richmenu;
pub mod signature;
pub mod text;
pub mod webhook;
