"""Box's official Python SDK (box-sdk-gen, from PyPI, unmodified) driven against a real boxsim.

Each test calls the SDK as an application would, then checks what came back (bytes, names, ids, errors) and what
reached boxsim (its request log). A call the SDK cannot make against boxsim is a boxsim bug until shown otherwise.
"""

import hashlib
import io
import os
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
import uuid

from box_sdk_gen import (
    AddShareLinkToFileSharedLink,
    AddShareLinkToFileSharedLinkAccessField,
    AddShareLinkToFolderSharedLink,
    AddShareLinkToFolderSharedLinkAccessField,
    BaseUrls,
    BoxAPIError,
    BoxCCGAuth,
    BoxClient,
    BoxDeveloperTokenAuth,
    BoxOAuth,
    CCGConfig,
    CopyFileParent,
    CopyFolderParent,
    CreateFolderParent,
    GetAuthorizeUrlOptions,
    GetEventStreamQueryParams,
    GetEventsStreamType,
    NetworkSession,
    OAuthConfig,
    PreflightFileUploadCheckParent,
    UpdateFileByIdLock,
    UpdateFileByIdLockAccessField,
    UpdateFolderByIdParent,
    UploadFileAttributes,
    UploadFileAttributesParentField,
    UploadFileVersionAttributes,
)

from box_sdk_gen.internal.utils import create_null

from boxsim import DEVELOPER_TOKEN, BoxSim, pattern, redirect_location


def base_urls(base):
    """The SDK's hosts, all pointed at boxsim: API `<base>/2.0`, uploads `<base>/api/2.0`, OAuth `<base>/api/oauth2`."""
    return BaseUrls(base_url=base, upload_url=base + "/api", oauth_2_url=base + "/api/oauth2")


class BoxSDKGenTests(unittest.TestCase):
    sim = None

    @classmethod
    def setUpClass(cls):
        cls.sim = BoxSim()
        cls.base = cls.sim.base_url
        cls.client = BoxClient(auth=BoxDeveloperTokenAuth(token=DEVELOPER_TOKEN)).with_custom_base_urls(
            base_urls(cls.base))

    @classmethod
    def tearDownClass(cls):
        if cls.sim:
            cls.sim.stop()

    # Helpers

    def folder(self, name=None, parent="0"):
        return self.client.folders.create_folder(name or f"t-{uuid.uuid4().hex[:8]}", CreateFolderParent(id=parent))

    def upload(self, folder_id, name, data):
        files = self.client.uploads.upload_file(
            UploadFileAttributes(name=name, parent=UploadFileAttributesParentField(id=folder_id)), io.BytesIO(data))
        return files.entries[0]

    def download(self, file_id, **options):
        return self.client.downloads.download_file(file_id, **options).read()

    def logged(self, method, path_part):
        return [entry for entry in self.sim.requests()
                if entry["method"] == method and path_part in entry["path"]]

    def assertAPIError(self, status, code, call):
        with self.assertRaises(BoxAPIError) as caught:
            call()
        self.assertEqual(caught.exception.response_info.status_code, status)
        self.assertEqual(caught.exception.response_info.code, code)

    # Users

    def test_user_info(self):
        me = self.client.users.get_user_me()
        self.assertEqual(me.login, "admin@boxsim.example")
        self.assertEqual(me.type, "user")
        self.assertTrue(me.id.isdigit())
        self.assertGreater(me.space_amount, 0)
        picked = self.client.users.get_user_me(fields=["name", "enterprise"])
        self.assertEqual(picked.id, me.id)
        self.assertEqual(picked.name, me.name)

    # Listings

    def test_listing_with_marker_paging_returns_every_entry_once_in_order(self):
        parent = self.folder()
        for name in ["sub-b", "Sub-A"]:
            self.folder(name, parent.id)
        for name in ["e.txt", "B.txt", "a.txt", "d.txt", "C.txt", "f.txt", "g.txt"]:
            self.upload(parent.id, name, name.encode())
        self.sim.clear_requests()
        names, marker, pages = [], None, 0
        while True:
            page = self.client.folders.get_folder_items(parent.id, usemarker=True, marker=marker, limit=3,
                                                        fields=["name", "size"])
            pages += 1
            self.assertLessEqual(len(page.entries), 3)
            names += [entry.name for entry in page.entries]
            marker = page.next_marker
            if not marker:
                break
        self.assertEqual(names, ["Sub-A", "sub-b", "a.txt", "B.txt", "C.txt", "d.txt", "e.txt", "f.txt", "g.txt"])
        self.assertEqual(pages, 3)
        self.assertEqual([(query["usemarker"][0].lower(), "marker" in query)
                          for query in self.sim.listing_queries(parent.id)],
                         [("true", False), ("true", True), ("true", True)])   # three pages, two markers sent back

    def test_listing_with_offset_paging(self):
        parent = self.folder()
        for index in range(5):
            self.upload(parent.id, f"f{index}.bin", bytes([index]) * (index + 1))
        first = self.client.folders.get_folder_items(parent.id, offset=0, limit=2)
        second = self.client.folders.get_folder_items(parent.id, offset=2, limit=2)
        third = self.client.folders.get_folder_items(parent.id, offset=4, limit=2)
        self.assertEqual(first.total_count, 5)
        self.assertEqual([e.name for e in first.entries + second.entries + third.entries],
                         [f"f{index}.bin" for index in range(5)])
        by_size = self.client.folders.get_folder_items(parent.id, sort="size", direction="DESC", fields=["size"])
        self.assertEqual([e.size for e in by_size.entries], [5, 4, 3, 2, 1])

    # Uploads and downloads

    def test_simple_upload_then_whole_and_ranged_downloads(self):
        parent = self.folder()
        data = pattern(300_000)
        uploaded = self.upload(parent.id, "data.bin", data)
        self.assertEqual(uploaded.size, len(data))
        self.assertEqual(uploaded.sha_1, hashlib.sha1(data).hexdigest())
        self.assertEqual(self.download(uploaded.id), data)
        self.sim.clear_requests()
        self.assertEqual(self.download(uploaded.id, range="bytes=1000-1999"), data[1000:2000])
        self.assertEqual(self.download(uploaded.id, range="bytes=299990-"), data[299990:])
        ranged = [entry for entry in self.sim.requests() if entry["path"].startswith("/dl/")]
        self.assertEqual([(entry["status"], entry["range"], entry["bytes_sent"]) for entry in ranged],
                         [(206, "bytes=1000-1999", 1000), (206, "bytes=299990-", 10)])

    def test_upload_of_a_taken_name_is_a_conflict_and_a_new_version_replaces_the_content(self):
        parent = self.folder()
        first = self.upload(parent.id, "v.txt", b"one")
        self.assertAPIError(409, "item_name_in_use", lambda: self.upload(parent.id, "V.TXT", b"two"))
        self.assertAPIError(409, "item_name_in_use", lambda: self.client.uploads.preflight_file_upload_check(
            name="v.txt", size=3, parent=PreflightFileUploadCheckParent(id=parent.id)))
        version = self.client.uploads.upload_file_version(
            first.id, UploadFileVersionAttributes(name="v.txt"), io.BytesIO(b"second content"))
        self.assertEqual(version.entries[0].id, first.id)
        self.assertNotEqual(version.entries[0].file_version.id, first.file_version.id)
        self.assertEqual(self.download(first.id), b"second content")

    def test_upload_big_file_goes_up_in_parts_and_reads_back_whole(self):
        parent = self.folder()
        data = pattern(20_000_000 + 12_345, seed=7)   # Box's smallest chunked upload is 20,000,000 bytes
        self.sim.clear_requests()
        uploaded = self.client.chunked_uploads.upload_big_file(io.BytesIO(data), "big.bin", len(data), parent.id)
        self.assertEqual(uploaded.name, "big.bin")
        self.assertEqual(uploaded.size, len(data))
        self.assertEqual(uploaded.sha_1, hashlib.sha1(data).hexdigest())
        parts = [entry for entry in self.logged("PUT", "/api/2.0/files/upload_sessions/")]
        self.assertEqual(len(parts), 3)                 # 8 MiB parts
        self.assertEqual(sorted(entry["content_range"].split("/")[0] for entry in parts),
                         sorted(f"bytes {start}-{min(start + (8 << 20), len(data)) - 1}"
                                for start in range(0, len(data), 8 << 20)))
        self.assertEqual(len(self.logged("POST", "/commit")), 1)
        self.assertEqual(self.download(uploaded.id), data)

    # Folders and files: create, rename, move, copy, delete

    def test_folder_create_rename_move_delete(self):
        outer = self.folder()
        inner = self.folder("inner", outer.id)
        target = self.folder()
        self.assertAPIError(409, "item_name_in_use", lambda: self.folder("INNER", outer.id))
        renamed = self.client.folders.update_folder_by_id(inner.id, name="renamed")
        self.assertEqual(renamed.name, "renamed")
        moved = self.client.folders.update_folder_by_id(inner.id, parent=UpdateFolderByIdParent(id=target.id))
        self.assertEqual(moved.parent.id, target.id)
        self.assertEqual([entry.id for entry in moved.path_collection.entries], ["0", target.id])
        self.assertEqual(self.client.folders.get_folder_items(outer.id).total_count, 0)
        self.assertAPIError(400, "cyclical_folder_structure", lambda: self.client.folders.update_folder_by_id(
            target.id, parent=UpdateFolderByIdParent(id=inner.id)))
        self.upload(inner.id, "x.txt", b"x")
        self.assertAPIError(400, "folder_not_empty", lambda: self.client.folders.delete_folder_by_id(target.id))
        self.client.folders.delete_folder_by_id(target.id, recursive=True)
        # Box answers 404 `trashed` for an item in the trash.
        self.assertAPIError(404, "trashed", lambda: self.client.folders.get_folder_by_id(inner.id))

    def test_file_rename_move_delete(self):
        first, second = self.folder(), self.folder()
        uploaded = self.upload(first.id, "a.txt", b"abc")
        renamed = self.client.files.update_file_by_id(uploaded.id, name="b.txt")
        self.assertEqual(renamed.name, "b.txt")
        moved = self.client.files.update_file_by_id(uploaded.id, parent=UpdateFolderByIdParent(id=second.id))
        self.assertEqual(moved.parent.id, second.id)
        self.assertEqual([e.name for e in self.client.folders.get_folder_items(second.id).entries], ["b.txt"])
        self.client.files.delete_file_by_id(uploaded.id)
        self.assertAPIError(404, "trashed", lambda: self.client.files.get_file_by_id(uploaded.id))

    def test_copy_of_a_file_and_of_a_folder_tree(self):
        source, target = self.folder(), self.folder()
        sub = self.folder("sub", source.id)
        self.upload(sub.id, "deep.txt", b"deep bytes")
        top = self.upload(source.id, "top.txt", b"top bytes")
        copied = self.client.files.copy_file(top.id, CopyFileParent(id=target.id), name="top copy.txt")
        self.assertNotEqual(copied.id, top.id)
        self.assertEqual(copied.sha_1, top.sha_1)
        self.assertEqual(self.download(copied.id), b"top bytes")
        tree = self.client.folders.copy_folder(source.id, CopyFolderParent(id=target.id), name="tree")
        listing = self.client.folders.get_folder_items(tree.id)
        self.assertEqual([e.name for e in listing.entries], ["sub", "top.txt"])
        deep = self.client.folders.get_folder_items(listing.entries[0].id).entries[0]
        self.assertEqual(self.download(deep.id), b"deep bytes")
        self.assertAPIError(409, "item_name_in_use", lambda: self.client.files.copy_file(
            top.id, CopyFileParent(id=target.id), name="TOP COPY.txt"))

    # Shared links

    def test_shared_links_on_a_file_and_a_password_protected_folder(self):
        parent = self.folder()
        uploaded = self.upload(parent.id, "shared.txt", b"shared bytes")
        shared = self.client.shared_links_files.add_share_link_to_file(
            uploaded.id, "shared_link",
            shared_link=AddShareLinkToFileSharedLink(access=AddShareLinkToFileSharedLinkAccessField.OPEN))
        url = shared.shared_link.url
        self.assertIn("/s/", url)
        self.assertEqual(shared.shared_link.effective_access, "open")
        found = self.client.shared_links_files.find_file_for_shared_link(f"shared_link={url}")
        self.assertEqual(found.id, uploaded.id)
        self.assertEqual(self.download(uploaded.id, boxapi=f"shared_link={url}"), b"shared bytes")
        again = self.client.shared_links_files.get_shared_link_for_file(uploaded.id, "shared_link")
        self.assertEqual(again.shared_link.url, url)

        folder_link = self.client.shared_links_folders.add_share_link_to_folder(
            parent.id, "shared_link", shared_link=AddShareLinkToFolderSharedLink(
                access=AddShareLinkToFolderSharedLinkAccessField.OPEN, password="Secret-123456"))
        link = folder_link.shared_link.url
        self.assertTrue(folder_link.shared_link.is_password_enabled)
        self.assertAPIError(403, "incorrect_shared_item_password",
                            lambda: self.client.shared_links_folders.find_folder_for_shared_link(
                                f"shared_link={link}&shared_link_password=wrong"))
        opened = self.client.shared_links_folders.find_folder_for_shared_link(
            f"shared_link={link}&shared_link_password=Secret-123456")
        self.assertEqual(opened.id, parent.id)

        removed = self.client.shared_links_files.remove_shared_link_from_file(uploaded.id, "shared_link",
                                                                              shared_link=create_null())
        self.assertIsNone(removed.shared_link)
        self.assertAPIError(404, "not_found",
                            lambda: self.client.shared_links_files.find_file_for_shared_link(f"shared_link={url}"))

    # Events

    def test_events_from_now_and_the_long_poll_server(self):
        position = self.client.events.get_events(stream_position="now").next_stream_position
        created = self.folder()
        page = self.client.events.get_events(stream_position=str(position), stream_type=GetEventsStreamType.CHANGES)
        mine = [event for event in page.entries if event.source and getattr(event.source, "id", None) == created.id]
        self.assertEqual([event.event_type for event in mine], ["ITEM_CREATE"])
        self.assertGreater(int(page.next_stream_position), int(position))

        servers = self.client.events.get_events_with_long_polling()
        server = servers.entries[0]
        self.assertEqual(server.type, "realtime_server")
        self.assertTrue(server.url.startswith(self.base))
        self.assertGreater(int(server.max_retries), 0)

    def test_event_stream_wakes_on_a_change(self):
        self.sim.control("PUT", "settings", {"long_poll_timeout": 2})
        stream = self.client.events.get_event_stream(query_params=GetEventStreamQueryParams())
        seen, target = [], {}
        done = threading.Event()

        def follow():
            for event in stream:
                seen.append(event)
                if target and getattr(event.source, "id", None) == target.get("id"):
                    done.set()
                    return

        thread = threading.Thread(target=follow, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not self.logged("GET", "/subscribe") and time.monotonic() < deadline:
            time.sleep(0.1)
        target["id"] = self.folder().id
        self.assertTrue(done.wait(30), f"no event for the new folder; saw {[e.event_type for e in seen]}")
        stream.stop()
        self.assertTrue(any("stream_position=" in (entry["query"] or "") for entry in self.logged("GET", "/subscribe")))

    # Other ways to authenticate

    def test_client_credentials_grant_acts_as_the_service_account(self):
        app = self.sim.control("POST", "apps", {"name": "ccg app"})
        auth = BoxCCGAuth(CCGConfig(client_id=app["client_id"], client_secret=app["client_secret"],
                                    enterprise_id=str(app["enterprise_id"])))
        client = BoxClient(auth=auth).with_custom_base_urls(base_urls(self.base))
        me = client.users.get_user_me()
        self.assertEqual(me.id, str(app["service_account_id"]))
        grants = [entry["grant_type"] for entry in self.logged("POST", "/oauth2/token")]
        self.assertIn("client_credentials", grants)

    def test_oauth_code_exchange_and_refresh(self):
        app = self.sim.control("POST", "apps", {"name": "oauth app", "redirect_uri": "http://127.0.0.1:9/callback"})
        self.sim.control("PUT", "settings", {"auto_approve": True})
        try:
            auth = BoxOAuth(OAuthConfig(client_id=app["client_id"], client_secret=app["client_secret"]))
            authorize = auth.get_authorize_url(options=GetAuthorizeUrlOptions(
                redirect_uri="http://127.0.0.1:9/callback", state="xyz"))
            query = urllib.parse.urlsplit(authorize).query
            location = redirect_location(f"{self.base}/api/oauth2/authorize?{query}")
            answer = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
            self.assertEqual(answer["state"], ["xyz"])
            session = NetworkSession(base_urls=base_urls(self.base))
            auth.get_tokens_authorization_code_grant(answer["code"][0], network_session=session)
            client = BoxClient(auth=auth, network_session=session)
            self.assertEqual(client.users.get_user_me().login, "admin@boxsim.example")
            old = auth.token_storage.get()
            new = auth.refresh_token(network_session=session)
            self.assertNotEqual(new.access_token, old.access_token)
            self.assertNotEqual(new.refresh_token, old.refresh_token)
            self.assertEqual(client.users.get_user_me().login, "admin@boxsim.example")
            # Box's refresh tokens are single-use.
            reuse = urllib.request.Request(self.base + "/oauth2/token", data=urllib.parse.urlencode({
                "grant_type": "refresh_token", "refresh_token": old.refresh_token, "client_id": app["client_id"],
                "client_secret": app["client_secret"]}).encode())
            with self.assertRaises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(reuse, timeout=10)
            self.assertEqual(refused.exception.code, 400)
        finally:
            self.sim.control("PUT", "settings", {"auto_approve": False})

    # Waiting for boxsim endpoints that are not built yet

    def test_versions_list_the_older_content(self):
        parent = self.folder()
        first = self.upload(parent.id, "v.txt", b"one")
        self.client.uploads.upload_file_version(first.id, UploadFileVersionAttributes(name="v.txt"),
                                                io.BytesIO(b"two"))
        versions = self.client.file_versions.get_file_versions(first.id)
        self.assertEqual(versions.total_count, 1)
        self.assertEqual(self.download(first.id, version=versions.entries[0].id), b"one")

    def test_trash_lists_and_restores_a_deleted_file(self):
        parent = self.folder()
        uploaded = self.upload(parent.id, "t.txt", b"trash me")
        self.client.files.delete_file_by_id(uploaded.id)
        trashed = self.client.trashed_items.get_trashed_items()
        self.assertIn(uploaded.id, [entry.id for entry in trashed.entries])
        restored = self.client.trashed_files.restore_file_from_trash(uploaded.id)
        self.assertEqual(restored.item_status, "active")
        self.assertEqual(self.download(uploaded.id), b"trash me")

    def test_search_finds_a_file_by_name(self):
        parent = self.folder()
        uploaded = self.upload(parent.id, "needle-in-haystack.txt", b"x")
        found = self.client.search.search_for_content(query="needle-in-haystack", ancestor_folder_ids=[parent.id])
        self.assertEqual([entry.id for entry in found.entries], [uploaded.id])

    def test_lock_a_file(self):
        parent = self.folder()
        uploaded = self.upload(parent.id, "locked.txt", b"x")
        locked = self.client.files.update_file_by_id(
            uploaded.id, lock=UpdateFileByIdLock(access=UpdateFileByIdLockAccessField.LOCK), fields=["lock"])
        self.assertIsNotNone(locked.lock)

    def test_download_url_follows_the_forwarded_scheme_and_host(self):
        parent = self.folder()
        uploaded = self.upload(parent.id, "p.txt", b"x")
        forwarded = self.client.with_extra_headers(extra_headers={"X-Forwarded-Proto": "https", "X-Forwarded-Host": "api.box.com"})
        url = forwarded.downloads.get_download_file_url(uploaded.id)
        self.assertTrue(url.startswith("https://"), url)

    def test_token_endpoint_on_the_account_host_path(self):
        app = self.sim.control("POST", "apps", {"name": "ccg app 2"})
        auth = BoxCCGAuth(CCGConfig(client_id=app["client_id"], client_secret=app["client_secret"],
                                    enterprise_id=str(app["enterprise_id"])))
        client = BoxClient(auth=auth).with_custom_base_urls(BaseUrls(base_url=self.base + "/api",
                                                                     upload_url=self.base + "/api"))
        self.assertEqual(client.users.get_user_me().id, str(app["service_account_id"]))


if __name__ == "__main__":
    unittest.main()
