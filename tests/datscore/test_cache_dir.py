"""DATScore's translations cache folder (``cache_dir``): a file there, a damaged or foreign
SQLite file, or a link is one clear error naming ``cache_dir`` and the path, never a foreign
exception; a good folder keeps translations across instances."""
from __future__ import annotations

import sqlite3

import pytest

from nlgmetrics.datscore.translations import TranslationCache


def test_a_cache_dir_that_is_a_file_is_named(tmp_path):
    target = tmp_path / "cache"
    target.write_text("not a folder")
    with pytest.raises(ValueError, match=rf"^cache_dir {target}: is a file, not a folder$"):
        TranslationCache(target)
    with pytest.raises(ValueError, match=rf"^cache_dir {target}/sub: is below a file, not a folder$"):
        TranslationCache(target / "sub")
    assert target.read_text() == "not a folder"


@pytest.mark.parametrize("content", [b"this is not SQLite at all\n" * 40, b"SQLite format 3\x00" + b"\xff" * 2000])
def test_a_damaged_cache_file_is_named_with_its_cache_dir(tmp_path, content):
    (tmp_path / "translations.sqlite").write_bytes(content)
    path = tmp_path / "translations.sqlite"
    with pytest.raises(ValueError, match=rf"^cache_dir {tmp_path}: {path} is not a usable translations cache "
                                         r"\(file is not a database\); delete the file or choose another cache_dir$"):
        TranslationCache(tmp_path)
    assert path.read_bytes() == content


def test_a_foreign_sqlite_file_is_named(tmp_path):
    db = sqlite3.connect(tmp_path / "translations.sqlite")
    db.execute("CREATE TABLE translations (id INTEGER, body BLOB)")
    db.commit()
    db.close()
    with pytest.raises(ValueError, match=r"translations\.sqlite is not a translations cache \(its table "
                                         r"'translations' has the columns \['id', 'body'\]\)"):
        TranslationCache(tmp_path)


def test_links_and_folders_at_the_cache_files_are_refused(tmp_path):
    victim = tmp_path / "victim.db"
    victim.write_bytes(b"")
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "translations.sqlite").symlink_to(victim)
    with pytest.raises(ValueError, match=r"^cache_dir .*/cache: .*translations\.sqlite: is a symbolic link"):
        TranslationCache(cache)
    assert victim.read_bytes() == b""
    (cache / "translations.sqlite").unlink()
    (cache / "translations.sqlite-journal").symlink_to(victim)
    with pytest.raises(ValueError, match=r"translations\.sqlite-journal: is a symbolic link"):
        TranslationCache(cache)
    (cache / "translations.sqlite-journal").unlink()
    (cache / "translations.sqlite").mkdir()
    with pytest.raises(ValueError, match=r"translations\.sqlite: is a directory; the translations cache file must"):
        TranslationCache(cache)


def test_a_good_cache_dir_is_made_and_keeps_translations(tmp_path):
    folder = tmp_path / "a" / "b"
    first = TranslationCache(folder)
    first.put_many({"k1": "Hallo", "k2": "Welt"})
    again = TranslationCache(folder)
    assert again.get_many(["k1", "k2", "k3"]) == {"k1": "Hallo", "k2": "Welt"} and len(again) == 2
