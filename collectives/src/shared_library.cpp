// libpcoll.so's own translation unit: CMake needs one source per library; the code is
// libpcoll.a's, linked whole (shared.cmake), with libpcoll.map as the export list.
namespace pcoll {
// Not exported (libpcoll.map): here only so the unit is not empty.
extern const char kSharedLibrary[] = "libpcoll.so";
}  // namespace pcoll
