// SPDX-License-Identifier: Apache-2.0
package io.vtscope.otep;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.ReturnInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * Rewrites {@code java.lang.VirtualThread} (JDK 25: src/java.base/share/classes/java/lang/
 * VirtualThread.java) so its mount and unmount call {@link MountHook}, with the JDK's own
 * ClassFile API. libvtscope.so calls {@link #transform} from its ClassFileLoadHook during a
 * RetransformClasses of VirtualThread, so transformations of other agents are kept.
 *
 * <ul>
 *   <li>{@code mount()}: before its return, after {@code carrier.setCurrentThread(this)}:
 *       {@code MountHook.mounted(threadId())}. Every mount goes through it: the first one, after
 *       a park, a yield, a blocking monitor enter or Object.wait (runContinuation calls mount()
 *       before cont.run()).
 *   <li>{@code unmount()}: at its start, before {@code carrier.setCurrentThread(carrier)}:
 *       {@code MountHook.unmounted()}. Every unmount goes through it (runContinuation's finally).
 *   <li>{@code afterDone(boolean)}: at its start: {@code MountHook.terminated(threadId())}, which
 *       releases the thread's record; it runs on the carrier after the last unmount.
 * </ul>
 *
 * A thread's record is not claimed here: the Java writer claims it at the thread's first
 * publication and points the carrier's thread-local at it then (io.vtscope.internal.RecordRegion),
 * so a thread that never publishes a context costs no claim and no release, and its carrier's
 * thread-local stays null while it runs (readers: no context).
 *
 * <p>mount, unmount and afterDone run in runContinuation's frame on the carrier, outside the
 * continuation. No native call can yield, so none pins the virtual thread.
 *
 * <p>{@link #writePatch} makes the same calls into a patched {@code java.base} instead, for a JVM
 * that then needs no JVMTI environment at all (see there).
 */
public final class VirtualThreadTransformer {
    private VirtualThreadTransformer() {}

    /** The file in a patch directory that says which JDK it was made from (libvtscope.so checks it). */
    public static final String STAMP = "vtscope-patch.properties";

    // The descriptors are built inside transform, from ConstantDescs, and this class has no
    // static initialiser: it is initialised at VMInit, and java.lang.constant initialised in
    // another order than ConstantDescs first fails for good (ConstantUtils.forPrimitiveType
    // reads ConstantDescs.CD_int while ConstantDescs is still being initialised: seen as
    // NoClassDefFoundError in the application's first lambda).
    private static ClassDesc virtualThread() {
        return ClassDesc.of("java.lang.VirtualThread");
    }

    private static ClassDesc hook() {
        return ClassDesc.of("io.vtscope.otep.MountHook");
    }

    private static ClassDesc patchLink() {
        return ClassDesc.of("io.vtscope.otep.PatchLink");
    }

    /**
     * The transformed class file, or null when the class does not have the shape this rewrite
     * was written for (then libvtscope.so falls back to the JVMTI events). Throws nothing.
     */
    public static byte[] transform(byte[] classFile) {
        return rewriteClass(classFile, false);
    }

    /**
     * Writes a patch of {@code java.base} into {@code dir} for {@code --patch-module java.base=dir}:
     * this JDK's own {@code java/lang/VirtualThread.class} with the calls {@link #transform} makes,
     * each guarded by {@link PatchLink#LIVE} (read first in VirtualThread's static initialiser),
     * the two hook classes given as class files, and {@value #STAMP} with this JDK's
     * {@code IMPLEMENTOR} and {@code JAVA_RUNTIME_VERSION} from {@code $JAVA_HOME/release}, which
     * libvtscope.so compares with the running JDK's before it relies on the patch.
     *
     * <p>Why: any JVMTI environment, the one RetransformClasses needs included, turns on HotSpot's
     * notifying mount/unmount path for good (JDK 25, JvmtiExport::get_jvmti_interface), and that
     * path costs every transition more than the hook's own calls (bench/RESULTS.md). A JVM whose
     * {@code java.base} already carries the calls needs no JVMTI environment.
     *
     * @return null when written, otherwise why not. Throws nothing.
     */
    public static String writePatch(String dir, byte[] mountHook, byte[] patchLink) {
        try {
            byte[] original;
            try (InputStream in = Object.class.getResourceAsStream("/java/lang/VirtualThread.class")) {
                if (in == null) return "this JDK has no java/lang/VirtualThread.class in java.base";
                original = in.readAllBytes();
            }
            if (new String(original, StandardCharsets.ISO_8859_1).contains("io/vtscope/otep/")) {
                return "this JVM's java.base is already patched (--patch-module): write the patch from an unpatched JVM";
            }
            byte[] patched = rewriteClass(original, true);
            if (patched == null) {
                return "java.lang.VirtualThread does not have the shape the hook rewrites "
                        + "(mount, unmount, afterDone, <clinit>)";
            }
            Path home = Path.of(System.getProperty("java.home"));
            String implementor = null;
            String runtimeVersion = null;
            for (String line : Files.readAllLines(home.resolve("release"), StandardCharsets.UTF_8)) {
                if (line.startsWith("IMPLEMENTOR=")) implementor = line;
                if (line.startsWith("JAVA_RUNTIME_VERSION=")) runtimeVersion = line;
            }
            if (runtimeVersion == null) {
                return home.resolve("release") + " has no JAVA_RUNTIME_VERSION to stamp the patch with";
            }
            Path root = Path.of(dir);
            Path hooks = root.resolve("io/vtscope/otep");
            Files.createDirectories(root.resolve("java/lang"));
            Files.createDirectories(hooks);
            Files.write(root.resolve("java/lang/VirtualThread.class"), patched);
            Files.write(hooks.resolve("MountHook.class"), mountHook);
            Files.write(hooks.resolve("PatchLink.class"), patchLink);
            String stamp = "# Written by libvtscope.so (write-patch) for --patch-module java.base=" + root.toAbsolutePath()
                    + "\n" + (implementor != null ? implementor + "\n" : "") + runtimeVersion + "\n"
                    + "VIRTUAL_THREAD_SHA256=" + HexFormat.of().formatHex(
                            MessageDigest.getInstance("SHA-256").digest(original)) + "\n";
            Files.writeString(root.resolve(STAMP), stamp, StandardCharsets.UTF_8);
            return null;
        } catch (IOException | RuntimeException | java.security.NoSuchAlgorithmException e) {
            return "cannot write the patch to " + dir + ": " + e;
        }
    }

    // guarded: for the patch (each call under PatchLink.LIVE, PatchLink initialised first in <clinit>).
    private static byte[] rewriteClass(byte[] classFile, boolean guarded) {
        try {
            ConstantDescs.CD_void.descriptorString();  // ConstantDescs first (see above)
            ClassFile cf = ClassFile.of();
            ClassModel model = cf.parse(classFile);
            if (!model.thisClass().asSymbol().equals(virtualThread())
                    || !has(model, "mount", "()V") || !has(model, "unmount", "()V")
                    || !has(model, "afterDone", "(Z)V") || (guarded && !has(model, "<clinit>", "()V"))) {
                return null;
            }
            return cf.transformClass(model, (ClassTransform) (clb, element) -> {
                if (element instanceof MethodModel m && (hooked(m) || (guarded && is(m, "<clinit>", "()V")))) {
                    String name = m.methodName().stringValue();
                    clb.transformMethod(m, (mb, me) -> {
                        if (me instanceof CodeModel code) {
                            mb.withCode(cb -> rewrite(name, code, cb, guarded));
                        } else {
                            mb.with(me);
                        }
                    });
                } else {
                    clb.with(element);
                }
            });
        } catch (Throwable t) {
            return null;
        }
    }

    private static void rewrite(String method, CodeModel code, CodeBuilder cb, boolean guarded) {
        switch (method) {
            case "<clinit>" -> cb.getstatic(patchLink(), "LIVE", ConstantDescs.CD_boolean).pop();
            case "unmount" -> call(cb, "unmounted", false, guarded);
            case "afterDone" -> call(cb, "terminated", true, guarded);
            default -> {}
        }
        for (CodeElement e : code) {
            if (method.equals("mount") && e instanceof ReturnInstruction) call(cb, "mounted", true, guarded);
            cb.with(e);
        }
    }

    // MountHook.name(this.threadId()) or MountHook.name(); guarded: if (PatchLink.LIVE) around it.
    private static void call(CodeBuilder cb, String name, boolean withThreadId, boolean guarded) {
        Label skip = guarded ? cb.newLabel() : null;
        if (guarded) cb.getstatic(patchLink(), "LIVE", ConstantDescs.CD_boolean).ifeq(skip);
        if (withThreadId) {
            cb.aload(0)
                    .invokevirtual(virtualThread(), "threadId", MethodTypeDesc.of(ConstantDescs.CD_long))
                    .invokestatic(hook(), name, MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_long));
        } else {
            cb.invokestatic(hook(), name, MethodTypeDesc.of(ConstantDescs.CD_void));
        }
        if (guarded) cb.labelBinding(skip);
    }

    private static boolean hooked(MethodModel m) {
        return is(m, "mount", "()V") || is(m, "unmount", "()V") || is(m, "afterDone", "(Z)V");
    }

    private static boolean has(ClassModel model, String name, String descriptor) {
        return model.methods().stream().anyMatch(m -> is(m, name, descriptor));
    }

    private static boolean is(MethodModel m, String name, String descriptor) {
        return m.methodName().equalsString(name) && m.methodType().equalsString(descriptor);
    }
}
