package org.cx.discovery;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;

/**
 * Makes Apache River 2.2.3 run on JDK 17 and later. The static initialiser of River's
 * {@code com.sun.jini.jeri.internal.runtime.Util} names {@code java.rmi.activation.ActivationID}, a class the JDK
 * removed (JEP 407); it only fills a field nothing reads, but the first JERI export or remote call fails with
 * {@code NoClassDefFoundError}. Before River loads that class, this defines it from River's own bytes with that one
 * class name changed to {@code java.lang.Object}. Class files refer to constants by index, never by byte offset,
 * so rewriting one UTF-8 constant is safe.
 */
public final class RiverCompat {
    static final String UTIL = "com.sun.jini.jeri.internal.runtime.Util";
    private static final String REMOVED = "java/rmi/activation/ActivationID";
    private static final String STAND_IN = "java/lang/Object";
    private static boolean installed;

    private RiverCompat() {
    }

    /** Idempotent; call before anything touches River's JERI. */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        installed = true;
        if (activationPresent()) {
            return; // a JDK that still has java.rmi.activation needs nothing
        }
        try {
            // A nested class of Util: loading it does not initialise Util, but gives a lookup into its package.
            Class<?> neighbour = Class.forName(UTIL + "$TableCache", false, RiverCompat.class.getClassLoader());
            byte[] original;
            try (InputStream in = neighbour.getClassLoader().getResourceAsStream(UTIL.replace('.', '/') + ".class")) {
                if (in == null) {
                    throw new IllegalStateException("River's " + UTIL + " is not on the class path");
                }
                original = in.readAllBytes();
            }
            MethodHandles.privateLookupIn(neighbour, MethodHandles.lookup()).defineClass(patch(original));
        } catch (LinkageError e) {
            // Already loaded: either patched earlier by another loader path, or River was used before install().
            if (!loadsWithoutActivation()) {
                throw new IllegalStateException("River's " + UTIL + " was loaded before RiverCompat.install()", e);
            }
        } catch (ReflectiveOperationException | IOException e) {
            throw new IllegalStateException("cannot make River run on Java " + Runtime.version() + ": " + e, e);
        }
    }

    private static boolean activationPresent() {
        try {
            Class.forName("java.rmi.activation.ActivationID", false, ClassLoader.getPlatformClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static boolean loadsWithoutActivation() {
        try {
            Class.forName(UTIL, true, RiverCompat.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** {@code classFile} with the UTF-8 constant naming the removed class replaced. */
    static byte[] patch(byte[] classFile) throws IOException {
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(classFile));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(classFile.length);
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(in.readInt()); // magic
        out.writeInt(in.readInt()); // minor, major
        int count = in.readUnsignedShort();
        out.writeShort(count);
        boolean replaced = false;
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            out.writeByte(tag);
            switch (tag) {
                case 1 -> { // Utf8
                    String s = in.readUTF();
                    if (s.equals(REMOVED)) {
                        s = STAND_IN;
                        replaced = true;
                    }
                    out.writeUTF(s);
                }
                case 3, 4, 9, 10, 11, 12, 17, 18 -> out.writeInt(in.readInt());
                case 5, 6 -> { // Long, Double: two slots
                    out.writeLong(in.readLong());
                    i++;
                }
                case 7, 8, 16, 19, 20 -> out.writeShort(in.readUnsignedShort());
                case 15 -> {
                    out.writeByte(in.readUnsignedByte());
                    out.writeShort(in.readUnsignedShort());
                }
                default -> throw new IOException("unknown constant pool tag " + tag);
            }
        }
        if (!replaced) {
            throw new IOException("River's " + UTIL + " does not name " + REMOVED + ": not the class expected");
        }
        in.transferTo(out); // the rest of the class refers to constants by index only
        out.flush();
        return bytes.toByteArray();
    }
}
