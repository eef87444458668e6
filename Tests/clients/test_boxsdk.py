"""Box's older Python SDK (boxsdk 3.x, from PyPI, unmodified) driven against a real boxsim.

boxsdk takes its hosts from an `API` config object: the client's session holds one (API and upload base URLs) and
the OAuth2 object another (token and authorize URLs); each test points both at boxsim. Like test_box_sdk_gen, each
test calls the SDK as an application would and checks what came back and what reached boxsim (its request log).
"""

import hashlib
import io
import logging
import tempfile
import threading
import time
import unittest
import urllib.parse
import uuid

from boxsdk import BoxAPIException, Client, OAuth2

from boxsim import DEVELOPER_TOKEN, BoxSim, pattern, redirect_location


def point_at(api_config, base):
    """boxsdk's hosts, all on boxsim: API `<base>/2.0`, uploads `<base>/api/2.0`, OAuth `<base>/oauth2`."""
    api_config.BASE_API_URL = base + "/2.0"
    api_config.UPLOAD_URL = base + "/api/2.0"
    api_config.OAUTH2_API_URL = base + "/oauth2"
    api_config.OAUTH2_AUTHORIZE_URL = base + "/api/oauth2/authorize"


def client_for(base, oauth):
    point_at(oauth.api_config, base)
    client = Client(oauth)
    point_at(client.session.api_config, base)
    return client


class BoxSDKTests(unittest.TestCase):
    sim = None

    @classmethod
    def setUpClass(cls):
        logging.getLogger("boxsdk").setLevel(logging.CRITICAL)   # boxsdk logs every error answer the tests expect
        cls.sim = BoxSim()
        cls.base = cls.sim.base_url
        cls.client = client_for(cls.base, OAuth2(client_id=None, client_secret=None, access_token=DEVELOPER_TOKEN))

    @classmethod
    def tearDownClass(cls):
        if cls.sim:
            cls.sim.stop()

    # Helpers

    def folder(self, name=None, parent="0"):
        return self.client.folder(parent).create_subfolder(name or f"t-{uuid.uuid4().hex[:8]}")

    def upload(self, folder, name, data):
        return folder.upload_stream(io.BytesIO(data), name)

    def logged(self, method, path_part):
        return [entry for entry in self.sim.requests()
                if entry["method"] == method and path_part in entry["path"]]

    def assertAPIError(self, status, code, call):
        with self.assertRaises(BoxAPIException) as caught:
            call()
        self.assertEqual(caught.exception.status, status)
        self.assertEqual(caught.exception.code, code)

    # Users

    def test_user_info(self):
        me = self.client.user().get()
        self.assertEqual(me.login, "admin@boxsim.example")
        self.assertEqual(me.type, "user")
        self.assertTrue(me.id.isdigit())
        self.assertGreater(me.space_amount, 0)
        picked = self.client.user().get(fields=["name", "login"])
        self.assertEqual((picked.id, picked.name), (me.id, me.name))
        self.assertEqual([(entry["method"], entry["path"], entry["status"]) for entry in self.logged("GET", "/users/")],
                         [("GET", "/2.0/users/me", 200)] * 2)

    # Listings

    def test_listing_with_marker_paging_returns_every_entry_once_in_order(self):
        parent = self.folder()
        for name in ["sub-b", "Sub-A"]:
            self.folder(name, parent.object_id)
        for name in ["e.txt", "B.txt", "a.txt", "d.txt", "C.txt", "f.txt", "g.txt"]:
            self.upload(parent, name, name.encode())
        self.sim.clear_requests()
        items = list(parent.get_items(limit=3, use_marker=True, fields=["name", "size"]))
        self.assertEqual([item.name for item in items],
                         ["Sub-A", "sub-b", "a.txt", "B.txt", "C.txt", "d.txt", "e.txt", "f.txt", "g.txt"])
        self.assertEqual([item.type for item in items], ["folder"] * 2 + ["file"] * 7)
        self.assertEqual([(query["usemarker"][0].lower(), "marker" in query)
                          for query in self.sim.listing_queries(parent.object_id)],
                         [("true", False), ("true", True), ("true", True)])   # three pages, two markers sent back

    def test_listing_with_offset_paging(self):
        parent = self.folder()
        for index in range(5):
            self.upload(parent, f"f{index}.bin", bytes([index]) * (index + 1))
        self.sim.clear_requests()
        items = list(parent.get_items(limit=2, fields=["name", "size"]))
        self.assertEqual([(item.name, item.size) for item in items], [(f"f{i}.bin", i + 1) for i in range(5)])
        self.assertEqual([query["offset"][0] for query in self.sim.listing_queries(parent.object_id)], ["0", "2", "4"])
        later = list(parent.get_items(limit=2, offset=3))
        self.assertEqual([item.name for item in later], ["f3.bin", "f4.bin"])

    # Uploads and downloads

    def test_simple_upload_then_whole_and_ranged_downloads(self):
        parent = self.folder()
        data = pattern(300_000)
        uploaded = self.upload(parent, "data.bin", data)
        self.assertEqual(uploaded.name, "data.bin")
        self.assertEqual(uploaded.size, len(data))
        self.assertEqual(uploaded.sha1, hashlib.sha1(data).hexdigest())
        self.assertEqual(self.client.file(uploaded.object_id).content(), data)
        self.sim.clear_requests()
        self.assertEqual(uploaded.content(byte_range=(1000, 1999)), data[1000:2000])
        sink = io.BytesIO()
        uploaded.download_to(sink, byte_range=(299_990, 299_999))
        self.assertEqual(sink.getvalue(), data[299_990:])
        ranged = [entry for entry in self.sim.requests() if entry["path"].startswith("/dl/")]
        self.assertEqual([(entry["status"], entry["range"], entry["bytes_sent"]) for entry in ranged],
                         [(206, "bytes=1000-1999", 1000), (206, "bytes=299990-299999", 10)])

    def test_upload_of_a_taken_name_is_a_conflict(self):
        parent = self.folder()
        self.upload(parent, "v.txt", b"one")
        self.assertAPIError(409, "item_name_in_use", lambda: self.upload(parent, "V.TXT", b"two"))
        self.assertAPIError(409, "item_name_in_use", lambda: parent.preflight_check(3, "v.txt"))

    def test_chunked_upload_goes_up_in_parts_and_reads_back_whole(self):
        parent = self.folder()
        data = pattern(20_000_000 + 12_345, seed=7)   # Box's smallest chunked upload is 20,000,000 bytes
        with tempfile.NamedTemporaryFile(suffix=".bin") as local:
            local.write(data)
            local.flush()
            self.sim.clear_requests()
            uploader = parent.get_chunked_uploader(local.name, file_name="big.bin")
            uploaded = uploader.start()
        self.assertEqual(uploaded.name, "big.bin")
        self.assertEqual(uploaded.size, len(data))
        self.assertEqual(uploaded.sha1, hashlib.sha1(data).hexdigest())
        parts = self.logged("PUT", "/api/2.0/files/upload_sessions/")
        self.assertEqual(sorted(entry["content_range"].split("/")[0] for entry in parts),
                         sorted(f"bytes {start}-{min(start + (8 << 20), len(data)) - 1}"
                                for start in range(0, len(data), 8 << 20)))
        commits = self.logged("POST", "/commit")
        self.assertEqual([entry["status"] for entry in commits], [201])
        self.assertEqual(uploaded.content(), data)

    # Versions

    def test_versions_list_promote_and_delete(self):
        parent = self.folder()
        uploaded = self.upload(parent, "v.txt", b"one")
        uploaded.update_contents_with_stream(io.BytesIO(b"two"))
        uploaded.update_contents_with_stream(io.BytesIO(b"three"))
        self.assertEqual(uploaded.content(), b"three")
        previous = list(uploaded.get_previous_versions())
        self.assertEqual(len(previous), 2)
        contents = sorted(uploaded.content(file_version=version) for version in previous)
        self.assertEqual(contents, [b"one", b"two"])
        oldest = next(version for version in previous if uploaded.content(file_version=version) == b"one")
        promoted = uploaded.promote_version(oldest)
        self.assertEqual(promoted.type, "file_version")
        self.assertNotEqual(promoted.object_id, oldest.object_id)
        self.assertEqual(uploaded.content(), b"one")
        self.assertEqual(len(list(uploaded.get_previous_versions())), 3)
        self.assertTrue(uploaded.delete_version(oldest))
        remaining = list(uploaded.get_previous_versions(fields=["trashed_at"]))
        self.assertEqual([version.trashed_at is not None for version in remaining
                          if version.object_id == oldest.object_id], [True])
        self.assertEqual(uploaded.content(), b"one")

    # Trash

    def test_trash_list_restore_and_purge(self):
        parent = self.folder()
        keep = self.upload(parent, "keep.txt", b"trash me")
        gone = self.upload(parent, "gone.txt", b"purge me")
        keep.delete()
        gone.delete()
        trashed = {item.object_id: item for item in self.client.trash().get_items()}
        self.assertIn(keep.object_id, trashed)
        self.assertIn(gone.object_id, trashed)
        self.assertEqual(self.client.trash().get_item(keep).item_status, "trashed")
        restored = self.client.trash().restore_item(keep)
        self.assertEqual(restored.item_status, "active")
        self.assertEqual(keep.content(), b"trash me")
        self.assertTrue(self.client.trash().permanently_delete_item(gone))
        self.assertAPIError(404, "not_found", lambda: self.client.trash().get_item(gone))
        self.assertNotIn(gone.object_id, [item.object_id for item in self.client.trash().get_items()])
        self.assertEqual([item.name for item in parent.get_items()], ["keep.txt"])

    # Search

    def test_search_finds_a_file_by_name_within_a_folder(self):
        parent = self.folder()
        elsewhere = self.folder()
        uploaded = self.upload(parent, "needle-in-haystack.txt", b"x")
        self.upload(elsewhere, "needle-in-haystack-too.txt", b"y")
        found = list(self.client.search().query("needle-in-haystack", ancestor_folders=[parent]))
        self.assertEqual([item.object_id for item in found], [uploaded.object_id])
        folders = list(self.client.search().query(parent.name, result_type="folder"))
        self.assertEqual([item.object_id for item in folders], [parent.object_id])

    # Shared links

    def test_shared_links_on_a_file_and_a_password_protected_folder(self):
        parent = self.folder()
        uploaded = self.upload(parent, "shared.txt", b"shared bytes")
        url = uploaded.get_shared_link(access="open")
        self.assertIn("/s/", url)
        found = self.client.get_shared_item(url)
        self.assertEqual((found.type, found.object_id), ("file", uploaded.object_id))
        self.assertEqual(found.content(), b"shared bytes")
        folder_url = parent.get_shared_link(access="open", password="Secret-123456")
        self.assertAPIError(403, "incorrect_shared_item_password",
                            lambda: self.client.get_shared_item(folder_url, password="wrong"))
        opened = self.client.get_shared_item(folder_url, password="Secret-123456")
        self.assertEqual((opened.type, opened.object_id), ("folder", parent.object_id))
        self.assertTrue(uploaded.remove_shared_link())
        self.assertAPIError(404, "not_found", lambda: self.client.get_shared_item(url))

    # Locks

    def test_lock_and_unlock_a_file(self):
        parent = self.folder()
        uploaded = self.upload(parent, "locked.txt", b"x")
        # boxsdk's lock()/unlock() ask for no fields, and `lock` is not one of Box's standard file fields, so the
        # lock is read back with `fields=lock` (by key: `File.lock` is boxsdk's method).
        uploaded.lock(prevent_download=True)
        lock = self.client.file(uploaded.object_id).get(fields=["lock"])["lock"]
        self.assertEqual(lock["type"], "lock")
        self.assertTrue(lock["is_download_prevented"])
        self.assertEqual(lock["created_by"]["login"], "admin@boxsim.example")
        uploaded.unlock()
        self.assertIsNone(self.client.file(uploaded.object_id).get(fields=["lock"])["lock"])
        self.assertEqual([entry["method"] for entry in self.logged("PUT", f"/2.0/files/{uploaded.object_id}")],
                         ["PUT", "PUT"])

    # Collaborations

    def test_a_folder_shared_with_a_user_shows_in_their_root(self):
        outer = self.folder()
        shared = self.folder("shared with a colleague", outer.object_id)
        self.upload(shared, "inside.txt", b"inside")
        colleague = self.sim.control("POST", "users", {"name": "Colleague"})
        token = self.sim.control("POST", "tokens", {"user_id": colleague["id"]})["access_token"]
        theirs = client_for(self.base, OAuth2(client_id=None, client_secret=None, access_token=token))
        theirs.folder("0").create_subfolder("their own")
        collaboration = shared.collaborate(self.client.user(colleague["id"]), "viewer")
        self.assertEqual((collaboration.role, collaboration.status), ("viewer", "accepted"))
        root = list(theirs.folder("0").get_items(fields=["name", "parent", "path_collection"]))
        self.assertEqual([item.name for item in root], ["shared with a colleague", "their own"])
        listed = root[0]
        self.assertEqual(listed.object_id, shared.object_id)
        self.assertEqual(listed.parent.object_id, "0")       # the owner's folders above it are not shown
        self.assertEqual([entry["id"] for entry in listed.path_collection["entries"]], ["0"])
        inside = list(theirs.folder(listed.object_id).get_items())
        self.assertEqual([item.name for item in inside], ["inside.txt"])
        self.assertEqual(inside[0].content(), b"inside")
        self.assertEqual([entry["id"] for entry in theirs.file(inside[0].object_id).get().path_collection["entries"]],
                         ["0", shared.object_id])
        self.assertEqual([entry["id"] for entry in shared.get().path_collection["entries"]], ["0", outer.object_id],
                         "the owner still sees the real path")

    # Events

    def test_events_from_the_latest_position(self):
        events = self.client.events()
        position = events.get_latest_stream_position()
        created = self.folder()
        page = events.get_events(stream_position=position)
        mine = [event for event in page["entries"] if event.source and event.source.object_id == created.object_id]
        self.assertEqual([event.event_type for event in mine], ["ITEM_CREATE"])
        self.assertGreater(int(page["next_stream_position"]), int(position))

    def test_long_polling_yields_a_new_change(self):
        self.sim.control("PUT", "settings", {"long_poll_timeout": 2})
        events = self.client.events()
        target, seen = {}, []
        done = threading.Event()

        def follow():
            for event in events.generate_events_with_long_polling():
                seen.append(event.event_type)
                if target and event.source and event.source.object_id == target.get("id"):
                    done.set()
                    return

        threading.Thread(target=follow, daemon=True).start()
        deadline = time.monotonic() + 30
        while not self.logged("GET", "/subscribe") and time.monotonic() < deadline:
            time.sleep(0.1)
        target["id"] = self.folder().object_id
        self.assertTrue(done.wait(30), f"no event for the new folder; saw {seen}")
        self.assertTrue(all("stream_position=" in (entry["query"] or "") for entry in self.logged("GET", "/subscribe")))

    # OAuth 2

    def test_oauth_code_exchange_then_refresh_explicit_and_on_401(self):
        app = self.sim.control("POST", "apps", {"name": "boxsdk app", "redirect_uri": "http://127.0.0.1:9/callback"})
        self.sim.control("PUT", "settings", {"auto_approve": True})
        stored = []
        try:
            oauth = OAuth2(client_id=app["client_id"], client_secret=app["client_secret"],
                           store_tokens=lambda access, refresh: stored.append((access, refresh)))
            client = client_for(self.base, oauth)
            authorize, csrf = oauth.get_authorization_url("http://127.0.0.1:9/callback")
            self.assertTrue(authorize.startswith(self.base + "/api/oauth2/authorize?"), authorize)
            answer = urllib.parse.parse_qs(urllib.parse.urlsplit(redirect_location(authorize)).query)
            self.assertEqual(answer["state"], [csrf])
            first = oauth.authenticate(answer["code"][0])
            self.assertEqual(stored, [first])
            self.assertEqual(client.user().get().login, "admin@boxsim.example")

            second = oauth.refresh(oauth.access_token)
            self.assertNotEqual(second[0], first[0])
            self.assertNotEqual(second[1], first[1])
            self.assertEqual(stored[-1], second)
            # Box's refresh tokens are single-use.
            stale = OAuth2(client_id=app["client_id"], client_secret=app["client_secret"], access_token=first[0],
                           refresh_token=first[1])
            point_at(stale.api_config, self.base)
            with self.assertRaises(Exception) as refused:
                stale.refresh(first[0])
            self.assertEqual(getattr(refused.exception, "status", None), 400)

            # An expired access token: boxsim answers 401, boxsdk refreshes and repeats the call.
            self.sim.control("POST", "tokens/expire", {"token": second[0]})
            self.sim.clear_requests()
            self.assertEqual(client.user().get().login, "admin@boxsim.example")
            self.assertNotEqual(oauth.access_token, second[0])
            self.assertEqual([entry["status"] for entry in self.logged("GET", "/2.0/users/me")], [401, 200])
            self.assertEqual([entry["grant_type"] for entry in self.logged("POST", "/oauth2/token")], ["refresh_token"])
        finally:
            self.sim.control("PUT", "settings", {"auto_approve": False})


if __name__ == "__main__":
    unittest.main()
