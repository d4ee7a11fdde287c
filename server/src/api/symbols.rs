//! `POST /api/symbols?name=foo.pdb`: store an uploaded PDB in the symbols
//! folder (`--symbols-dir`, default `DATA_DIR/symbols`) in symstore layout
//! (`foo.pdb/GUIDAGE/foo.pdb`, name lower-cased; the first entry of every
//! trace's symbol path) and re-name the loaded traces that recorded its
//! identity; on a team server every replica does too (`shared_pdbs`).

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use serde::Deserialize;
use serde_json::json;
use symbols::{Pdb, PdbIdentity};

#[derive(Debug, Deserialize, Default)]
pub struct SymbolUploadParams {
    /// File name of the PDB, as the images recorded it (`foo.pdb`).
    pub name: Option<String>,
}

/// A plain `*.pdb` file name: it becomes two path components.
fn check_name(name: Option<&str>) -> ApiResult<String> {
    let name = name.unwrap_or("");
    let plain = !name.is_empty()
        && name.len() <= 255
        && !name.contains(['/', '\\', ':', '\0'])
        && !name.chars().any(char::is_control)
        && !name.starts_with('.')
        && name.to_ascii_lowercase().ends_with(".pdb");
    if plain {
        Ok(name.to_string())
    } else {
        Err(ApiError::bad_request(format!(
            "parameter name must be a plain PDB file name like foo.pdb, not {:?}",
            name.chars().take(80).collect::<String>()
        )))
    }
}

pub async fn upload(
    State(app): State<AppState>,
    headers: HeaderMap,
    Query(p): Query<SymbolUploadParams>,
    body: Body,
) -> ApiResult<impl IntoResponse> {
    // The token and the name are checked before the body is received.
    let name = match super::receive::require_auth(&app, &headers)
        .and_then(|()| check_name(p.name.as_deref()))
    {
        Ok(n) => n,
        Err(e) => {
            super::drain::drain(&headers, body).await;
            return Err(e);
        }
    };
    let got = super::receive::receive(&app, body).await?;
    let path = got.temp.path.clone();
    let (guid, age) = tokio::task::spawn_blocking(move || Pdb::read_identity(&path))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "not_a_pdb", e.to_string()))?;
    // Lower-case, so that lookups find it whatever case an image recorded
    // (symstore lookups try the recorded name and its lower case).
    let id = PdbIdentity::new(&name.to_ascii_lowercase(), guid, age);
    let rel = id.symstore_path();
    // A team server's other replicas fetch it from the object store.
    let (store, from, key, size) = (
        app.store.clone(),
        got.temp.path.clone(),
        rel.clone(),
        got.size,
    );
    tokio::task::spawn_blocking(move || crate::shared_pdbs::publish(&store, &from, &key, size))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(|e| {
            if crate::catalog::is_unavailable(&e) {
                ApiError::unavailable(format!("cannot store the PDB: {e:#}"))
            } else {
                ApiError::internal(format!("cannot store the PDB: {e:#}"))
            }
        })?;
    let dest = app.store.symbols_dir.join(&rel);
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| ApiError::internal(format!("cannot store the PDB: {e}")))?;
    }
    got.temp
        .persist(&dest)
        .map_err(|e| ApiError::internal(format!("cannot store the PDB: {e}")))?;
    tracing::info!(pdb = %id, "stored uploaded PDB");
    crate::shared_pdbs::announce(&app.store, &rel);
    let traces = app.store.resymbolize_needing(guid, age);
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "name": id.name,
            "guid": guid.to_string(),
            "age": age,
            "path": rel,
            "size": got.size,
            "resymbolizing": traces,
        })),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_plain_pdb_file_names() {
        assert_eq!(check_name(Some("foo.pdb")).unwrap(), "foo.pdb");
        assert!(check_name(Some("XmlLite.PDB")).is_ok());
        for bad in [
            "",
            "foo.dll",
            "../foo.pdb",
            "a/foo.pdb",
            "a\\foo.pdb",
            ".pdb",
            "c:foo.pdb",
        ] {
            assert!(check_name(Some(bad)).is_err(), "{bad}");
        }
        assert!(check_name(None).is_err());
    }
}
