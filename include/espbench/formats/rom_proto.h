/* The Espressif ROM serial loader protocol: opcodes, status and error codes,
 * request/response packet layout. Pure functions shared by the flasher (host
 * side) and espbench-vboard (board side). See docs/rom-protocol.md. */
#ifndef ESPBENCH_ROM_PROTO_H
#define ESPBENCH_ROM_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/base/buf.h"

enum eb_rom_op {
    EB_ROM_FLASH_BEGIN = 0x02,
    EB_ROM_FLASH_DATA = 0x03,
    EB_ROM_FLASH_END = 0x04,
    EB_ROM_MEM_BEGIN = 0x05,
    EB_ROM_MEM_END = 0x06,
    EB_ROM_MEM_DATA = 0x07,
    EB_ROM_SYNC = 0x08,
    EB_ROM_WRITE_REG = 0x09,
    EB_ROM_READ_REG = 0x0A,
    EB_ROM_SPI_SET_PARAMS = 0x0B,
    EB_ROM_SPI_ATTACH = 0x0D,
    EB_ROM_READ_FLASH_SLOW = 0x0E,
    EB_ROM_CHANGE_BAUDRATE = 0x0F,
    EB_ROM_FLASH_DEFL_BEGIN = 0x10,
    EB_ROM_FLASH_DEFL_DATA = 0x11,
    EB_ROM_FLASH_DEFL_END = 0x12,
    EB_ROM_SPI_FLASH_MD5 = 0x13,
    EB_ROM_GET_SECURITY_INFO = 0x14,
    /* stub only */
    EB_ROM_ERASE_FLASH = 0xD0,
    EB_ROM_ERASE_REGION = 0xD1,
    EB_ROM_READ_FLASH = 0xD2,
    EB_ROM_RUN_USER_CODE = 0xD3,
};

/* ROM error codes (second status byte). */
enum eb_rom_err {
    EB_ROM_ERR_INVALID_MSG = 0x05,  /* bad format, unknown command, bad length */
    EB_ROM_ERR_FAILED = 0x06,
    EB_ROM_ERR_CHECKSUM = 0x07,
    EB_ROM_ERR_FLASH_WRITE = 0x08,
    EB_ROM_ERR_FLASH_READ = 0x09,
    EB_ROM_ERR_FLASH_READ_LEN = 0x0A,
    EB_ROM_ERR_DEFLATE = 0x0B,
    EB_ROM_ERR_DEFLATE_ADLER = 0x0C,
    EB_ROM_ERR_DEFLATE_PARAM = 0x0D,
    EB_ROM_ERR_BAD_SEQ = 0x64,       /* invalid parameter (sequence out of order) */
    /* stub codes */
    EB_STUB_ERR_BAD_DATA_LEN = 0xC0,
    EB_STUB_ERR_BAD_CHECKSUM = 0xC1,
    EB_STUB_ERR_BAD_BLOCKSIZE = 0xC2,
    EB_STUB_ERR_INVALID_COMMAND = 0xC3,
    EB_STUB_ERR_INFLATE = 0xC7,
    EB_STUB_ERR_NOT_ENOUGH_DATA = 0xC8,
    EB_STUB_ERR_TOO_MUCH_DATA = 0xC9,
};
const char *eb_rom_err_name(int code);
const char *eb_rom_op_name(int op);

#define EB_ROM_SYNC_WORD 0x20120707u
#define EB_ROM_CHIP_MAGIC_REG 0x40001000u
#define EB_ROM_FLASH_BLOCK 0x400u   /* ROM FLASH_WRITE_SIZE */
#define EB_STUB_FLASH_BLOCK 0x4000u /* stub FLASH_WRITE_SIZE */
#define EB_ROM_RAM_BLOCK 0x1800u
#define EB_ROM_CHECKSUM_SEED 0xEFu
#define EB_ROM_DATA_HDR 16u          /* _DATA payload header: len, seq, 0, 0 */

/* 0xEF-seeded XOR over the data of a _DATA command. */
uint8_t eb_rom_checksum(const uint8_t *data, size_t len);

/* Builds a request body (direction 0, op, size, checksum, data) — not framed. */
void eb_rom_build_request(eb_buf *out, uint8_t op, const uint8_t *data, size_t len, uint32_t checksum);
/* Builds a _DATA request (FLASH_DATA, FLASH_DEFL_DATA, MEM_DATA) with header and checksum. */
void eb_rom_build_data_request(eb_buf *out, uint8_t op, uint32_t seq, const uint8_t *data, size_t len);

typedef struct eb_rom_request {
    uint8_t op;
    uint16_t size;
    uint32_t checksum;
    const uint8_t *data; /* points into the parsed packet */
} eb_rom_request;
/* Parses a decoded (unframed) request. Returns 0, or -1 if not a request. */
int eb_rom_parse_request(const uint8_t *pkt, size_t len, eb_rom_request *out);

/* Builds a response: direction 1, op, size, value, payload, then status bytes
 * (status_bytes = 4 for ESP32+ ROM, 2 for stub and ESP8266 ROM). */
void eb_rom_build_response(eb_buf *out, uint8_t op, uint32_t value, const uint8_t *payload,
                           size_t payload_len, uint8_t status, uint8_t error, int status_bytes);

typedef struct eb_rom_response {
    uint8_t op;
    uint16_t size;
    uint32_t value;
    const uint8_t *data; /* payload + status bytes */
    size_t data_len;
    uint8_t status;      /* 0 ok */
    uint8_t error;       /* error code when status != 0 */
} eb_rom_response;
/* Parses a decoded response. expected_payload is the payload length the
 * command returns before its status bytes (e.g. 32 for ROM MD5, 16 for stub
 * MD5, 20 for GET_SECURITY_INFO, 0 for most). Returns 0 or -1 (not a response). */
int eb_rom_parse_response(const uint8_t *pkt, size_t len, size_t expected_payload, eb_rom_response *out);

#endif
