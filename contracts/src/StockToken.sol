// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Pausable} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Pausable.sol";

/// @title StockToken
/// @notice One tokenized stock on one chain: an ERC-20 with 18 decimals. Supply changes only through
/// holders of MINTER_ROLE (mint to anyone) and BURNER_ROLE (burn from their own balance, so a burner
/// can destroy only tokens it was given or pulled with an allowance). Both roles go to the token
/// manager and the issuer contract. PAUSER_ROLE stops every transfer, mint and burn.
contract StockToken is ERC20Pausable, AccessControl {
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    bytes32 public constant BURNER_ROLE = keccak256("BURNER_ROLE");
    bytes32 public constant PAUSER_ROLE = keccak256("PAUSER_ROLE");

    /// @param admin Receives DEFAULT_ADMIN_ROLE and PAUSER_ROLE.
    /// @param supplyManagers Receive MINTER_ROLE and BURNER_ROLE (the token manager and the issuer contract).
    constructor(string memory name_, string memory symbol_, address admin, address[] memory supplyManagers)
        ERC20(name_, symbol_)
    {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(PAUSER_ROLE, admin);
        for (uint256 i = 0; i < supplyManagers.length; i++) {
            _grantRole(MINTER_ROLE, supplyManagers[i]);
            _grantRole(BURNER_ROLE, supplyManagers[i]);
        }
    }

    function mint(address to, uint256 amount) external onlyRole(MINTER_ROLE) {
        _mint(to, amount);
    }

    function burn(uint256 amount) external onlyRole(BURNER_ROLE) {
        _burn(_msgSender(), amount);
    }

    function pause() external onlyRole(PAUSER_ROLE) {
        _pause();
    }

    function unpause() external onlyRole(PAUSER_ROLE) {
        _unpause();
    }
}
