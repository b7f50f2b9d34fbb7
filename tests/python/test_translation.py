#!/usr/bin/python3
"""cugi's GErrors in German through PyGObject, from the catalogue the build
makes in po/ (build/po/de/LC_MESSAGES/cugi-1.0.mo). No GPU needed.

The text domain is bound before cugi is loaded, as a Python application with
a locale tree of its own would: cugi, which binds its domain to the install
directory when it is loaded, must leave that binding alone."""

import locale
import os
import unittest

import gi

GETTEXT_PACKAGE = 'cugi-1.0'
BUILD_LOCALE_DIR = os.path.join(os.environ.get('G_TEST_BUILDDIR', ''), '..', 'po')

# glibc ignores LANGUAGE where the messages locale is "C" or "POSIX" (Python
# starts with LC_MESSAGES at "C"), and newer ones for their built-in C.UTF-8
# too: a real locale where there is one (Ubuntu has en_US.UTF-8), else
# C.UTF-8, which Debian 12's glibc lets LANGUAGE choose for. No German
# locale needed.
os.environ['LANGUAGE'] = 'de'
for name in ('en_US.UTF-8', 'C.UTF-8'):
    try:
        locale.setlocale(locale.LC_ALL, name)
        break
    except locale.Error:
        continue
locale.bindtextdomain(GETTEXT_PACKAGE, BUILD_LOCALE_DIR)

gi.require_version('Cugi', '1.0')
from gi.repository import Cugi, GLib  # noqa: E402


class TranslationTest(unittest.TestCase):
    def test_catalogue_built(self):
        self.assertTrue(os.path.isfile(os.path.join(BUILD_LOCALE_DIR, 'de', 'LC_MESSAGES',
                                                    GETTEXT_PACKAGE + '.mo')),
                        'the German catalogue is not built; is G_TEST_BUILDDIR set?')

    def test_bad_alias_in_german(self):
        # Cugi.init() first: neither loading cugi nor initializing it may
        # rebind the domain (it fails without a GPU; that does not matter).
        try:
            Cugi.init()
        except GLib.Error:
            pass
        with self.assertRaises(GLib.Error) as raised:
            Cugi.Device.get_by_alias('gpu7')
        self.assertTrue(raised.exception.matches(Cugi.error_quark(), Cugi.Error.INVALID_ARGUMENT))
        self.assertEqual(raised.exception.message,
                         '„gpu7“ ist kein Gerätealias: Verwenden Sie „cuda“ für das '
                         'Standardgerät oder „cuda:N“ für Gerät N')

    def test_plural_forms(self):
        self.assertEqual(GLib.dngettext(GETTEXT_PACKAGE, '%u device\n', '%u devices\n', 1), '%u Gerät\n')
        self.assertEqual(GLib.dngettext(GETTEXT_PACKAGE, '%u device\n', '%u devices\n', 3), '%u Geräte\n')


if __name__ == '__main__':
    unittest.main(verbosity=2)
