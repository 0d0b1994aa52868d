//! How rows and values cross the store's boundary, without sqlx's derive macros (which would
//! compile sqlx's drivers a second time, for the compiler): `row!` declares a struct read
//! column by column, by field name, from a row of either backend; `text_enum!` declares an
//! enum kept in a TEXT column as the strings it names; `text_column!` makes any [`StoredText`]
//! readable and writable as TEXT by SQLite and PostgreSQL alike.

use sqlx::Database;
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;

/// A value kept in a TEXT column as one of a fixed set of strings.
pub trait StoredText: Sized {
    /// The text it is kept as.
    fn text(&self) -> &'static str;
    /// The value kept as `text`, if it is one.
    fn parse(text: &str) -> Option<Self>;
}

/// Declares a struct read from a row column by column, each field from the column of its name,
/// on either backend (what `#[derive(sqlx::FromRow)]` would do).
macro_rules! row {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$field_meta:meta])* $field_vis:vis $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $( $(#[$field_meta])* $field_vis $field: $ty ),*
        }

        impl<'r, R: sqlx::Row> sqlx::FromRow<'r, R> for $name
        where
            &'r str: sqlx::ColumnIndex<R>,
            $( $ty: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>, )*
        {
            fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
                Ok(Self { $( $field: row.try_get(stringify!($field))?, )* })
            }
        }
    };
}

/// Declares an enum kept in a TEXT column: each variant with the text it is kept as.
macro_rules! text_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident => $text:literal ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $( $(#[$variant_meta])* $variant ),*
        }

        impl $crate::store::columns::StoredText for $name {
            fn text(&self) -> &'static str {
                match self { $( Self::$variant => $text ),* }
            }

            fn parse(text: &str) -> Option<Self> {
                match text { $( $text => Some(Self::$variant), )* _ => None }
            }
        }

        text_column!($name);
    };
}

/// Makes a [`StoredText`] type readable and writable as TEXT on every backend.
macro_rules! text_column {
    ($name:ty) => {
        impl<DB: sqlx::Database> sqlx::Type<DB> for $name
        where
            str: sqlx::Type<DB>,
        {
            fn type_info() -> DB::TypeInfo {
                <str as sqlx::Type<DB>>::type_info()
            }

            fn compatible(ty: &DB::TypeInfo) -> bool {
                <str as sqlx::Type<DB>>::compatible(ty)
            }
        }

        impl<'q, DB: sqlx::Database> sqlx::Encode<'q, DB> for $name
        where
            &'q str: sqlx::Encode<'q, DB>,
        {
            fn encode_by_ref(
                &self,
                buf: &mut <DB as sqlx::Database>::ArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                $crate::store::columns::encode_text::<DB>(self, buf)
            }
        }

        impl<'r, DB: sqlx::Database> sqlx::Decode<'r, DB> for $name
        where
            &'r str: sqlx::Decode<'r, DB>,
        {
            fn decode(
                value: <DB as sqlx::Database>::ValueRef<'r>,
            ) -> Result<Self, sqlx::error::BoxDynError> {
                $crate::store::columns::decode_text::<DB, Self>(value)
            }
        }
    };
}

/// Writes `value`'s text.
pub fn encode_text<'q, DB: Database>(
    value: &impl StoredText,
    buf: &mut <DB as Database>::ArgumentBuffer,
) -> Result<IsNull, BoxDynError>
where
    &'q str: sqlx::Encode<'q, DB>,
{
    let text: &'q str = value.text();
    <&'q str as sqlx::Encode<'q, DB>>::encode_by_ref(&text, buf)
}

/// Reads a value from its text; text it does not know is an error that names it.
pub fn decode_text<'r, DB: Database, T: StoredText>(
    value: <DB as Database>::ValueRef<'r>,
) -> Result<T, BoxDynError>
where
    &'r str: sqlx::Decode<'r, DB>,
{
    let text = <&'r str as sqlx::Decode<'r, DB>>::decode(value)?;
    T::parse(text).ok_or_else(|| {
        let kind = std::any::type_name::<T>().rsplit("::").next().unwrap_or("value");
        format!("unknown {kind} {text:?}").into()
    })
}
