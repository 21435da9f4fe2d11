/**
 * The federated file service: one namespace over files that stay on hosts' own disks. A {@link NameService} holds
 * the namespace durably; {@link FileServer}s export a directory each and move bytes in checksummed blocks;
 * {@link FsClient} is the library every way in uses.
 */
package org.cx.fs;
