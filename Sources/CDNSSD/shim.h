#include <avahi-compat-libdns_sd/dns_sd.h>
